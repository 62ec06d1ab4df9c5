//! Redirections and the file descriptors 0-9.
//!
//! A command's fds 0, 1 and 2 are indexes into the shell's inputs and sinks ([`Io`]); fds
//! 3-9 are the shell's own table ([`Exec::fds`]), open on a stream or closed. A
//! redirection on a command changes them for that command only: what it changes is saved
//! in a [`Mark`] and put back when the command ends. `exec` with redirections and no
//! command changes them for the rest of the shell (or subshell), as POSIX says.

use std::rc::Rc;

use super::ast::{Redir, RedirOp, RedirTarget};
use super::exec::{Exec, Inputs, Io, Sinks, R};
use crate::error::Status;
use crate::stream::{Out, Stdin};

/// The highest file descriptor a script may name (POSIX requires 0-9).
pub const MAX_FD: u32 = 9;

/// What a file descriptor above 2 is open on.
#[derive(Clone, Default)]
pub enum Fd {
    #[default]
    Closed,
    Read(Stdin),
    Write(Out),
}

/// Fds 3-9: shared with subshells and pipeline stages until one of them changes an entry,
/// for most scripts never open one and every stage of a pipeline starts with a copy.
#[derive(Clone, Default)]
pub struct FdTable(Option<Rc<[Fd; 7]>>);

impl FdTable {
    /// Entry `i` (fd `i + 3`).
    fn get(&self, i: usize) -> Option<&Fd> {
        self.0.as_ref().map(|t| &t[i])
    }

    /// Sets entry `i`, giving the one it replaces.
    fn replace(&mut self, i: usize, fd: Fd) -> Fd {
        let table = Rc::make_mut(self.0.get_or_insert_with(Rc::default));
        std::mem::replace(&mut table[i], fd)
    }
}

/// What a command's redirections changed, to be undone when it ends.
pub struct Mark {
    inputs: usize,
    sinks: usize,
    fds: Vec<(usize, Fd)>,
}

/// A shell's streams as a subshell starts: what `exec` in it changes is put back when it
/// ends (a subshell is a process of its own; its fds are not its parent's).
pub struct Streams {
    sinks: Sinks,
    inputs: Inputs,
    fds: FdTable,
}

/// Where a duplicated descriptor points: fds 0-2 as the command sees them (no copy is
/// made of the stream: the index is shared), a higher one as its table entry.
enum Source {
    Input(usize),
    Sink(Option<usize>),
    Table(Fd),
}

impl Exec<'_> {
    /// The current extent of inputs and sinks, before redirections push more.
    pub fn mark(&self) -> Mark {
        Mark {
            inputs: self.inputs.len(),
            sinks: self.sinks.len(),
            fds: Vec::new(),
        }
    }

    /// The streams as they are, for [`Exec::restore_streams`].
    pub fn save_streams(&self) -> Streams {
        Streams {
            sinks: self.sinks.clone(),
            inputs: self.inputs.clone(),
            fds: self.fds.clone(),
        }
    }

    pub fn restore_streams(&mut self, saved: Streams) {
        self.sinks = saved.sinks;
        self.inputs = saved.inputs;
        self.fds = saved.fds;
    }

    /// Undoes what the redirections since `mark` did.
    pub fn unwind(&mut self, mark: Mark) {
        self.inputs.truncate(mark.inputs);
        self.sinks.truncate(mark.sinks);
        for (i, fd) in mark.fds.into_iter().rev() {
            self.fds.replace(i, fd);
        }
    }

    /// `exec` with redirections only: the changes stay. fds 0-2 are changed where `io`
    /// points, so every later command that uses them sees the new stream.
    pub fn keep_redirections(&mut self, io: Io, new: Io, mut mark: Mark) {
        if new.stdin != io.stdin {
            self.inputs[io.stdin] = self.inputs[new.stdin].clone();
        }
        if new.out != io.out {
            if let Some(i) = io.out {
                self.sinks[i] = self.sink(new.out);
            }
        }
        if new.err != io.err {
            if let Some(i) = io.err {
                self.sinks[i] = self.sink(new.err);
            }
        }
        mark.fds.clear();
        self.unwind(mark);
    }

    fn source(&self, io: &Io, n: u32) -> Option<Source> {
        match n {
            0 => Some(Source::Input(io.stdin)),
            1 => Some(Source::Sink(io.out)),
            2 => Some(Source::Sink(io.err)),
            3..=MAX_FD => match self.fds.get((n - 3) as usize) {
                None | Some(Fd::Closed) => None,
                Some(fd) => Some(Source::Table(fd.clone())),
            },
            _ => None,
        }
    }

    /// Points `fd` at `to`; `false` when that direction cannot be (stdin made a writer).
    fn point(&mut self, io: &mut Io, fd: u32, to: Source, mark: &mut Mark) -> bool {
        match fd {
            0 => match to {
                Source::Input(i) => io.stdin = i,
                Source::Table(Fd::Read(s)) => {
                    self.inputs.push(s);
                    io.stdin = self.inputs.len() - 1;
                }
                // Reading a writer's fd: nothing comes (as from a pipe's writing end).
                Source::Sink(_) | Source::Table(_) => {
                    self.inputs.push(Stdin::default());
                    io.stdin = self.inputs.len() - 1;
                }
            },
            1 | 2 => {
                let sink = match to {
                    Source::Sink(s) => s,
                    Source::Table(Fd::Write(o)) => {
                        self.sinks.push(o);
                        Some(self.sinks.len() - 1)
                    }
                    Source::Input(_) | Source::Table(_) => return false,
                };
                if fd == 1 {
                    io.out = sink;
                } else {
                    io.err = sink;
                }
            }
            _ => {
                let entry = match to {
                    Source::Input(i) => Fd::Read(self.inputs[i].clone()),
                    Source::Sink(s) => Fd::Write(self.sink(s)),
                    Source::Table(f) => f,
                };
                let i = (fd - 3) as usize;
                mark.fds.push((i, self.fds.replace(i, entry)));
            }
        }
        true
    }

    fn close(&mut self, io: &mut Io, fd: u32, mark: &mut Mark) {
        match fd {
            0 => {
                self.inputs.push(Stdin::default());
                io.stdin = self.inputs.len() - 1;
            }
            1 => io.out = None,
            2 => io.err = None,
            _ => {
                let i = (fd - 3) as usize;
                mark.fds.push((i, self.fds.replace(i, Fd::Closed)));
            }
        }
    }

    /// Applies redirections to `io`, left to right: `Ok(Err(status))` when one fails
    /// (reported). What they change is recorded in `mark`, for [`Exec::unwind`].
    pub async fn redirect(
        &mut self,
        redirs: &[Redir],
        mut io: Io,
        mark: &mut Mark,
    ) -> R<Result<Io, Status>> {
        for r in redirs {
            let fd = r.fd.unwrap_or(match r.op {
                RedirOp::In | RedirOp::DupIn | RedirOp::HereDoc | RedirOp::ReadWrite => 0,
                _ => 1,
            });
            if fd > MAX_FD {
                self.diag(io, &format!("{fd}: bad file descriptor"));
                return Ok(Err(1));
            }
            let target = match &r.target {
                RedirTarget::Here(cell) => {
                    let body = match cell.get() {
                        Some(w) => self.expand_quoted(w, io).await?,
                        None => Vec::new(),
                    };
                    self.inputs.push(Stdin::bytes(body));
                    let here = Source::Table(Fd::Read(self.inputs[self.inputs.len() - 1].clone()));
                    let to = if fd == 0 {
                        Source::Input(self.inputs.len() - 1)
                    } else {
                        here
                    };
                    if !self.point(&mut io, fd, to, mark) {
                        self.diag(io, &format!("{fd}: a here-document cannot be written to"));
                        return Ok(Err(1));
                    }
                    continue;
                }
                RedirTarget::Word(w) => self.expand_string(w, io).await?,
            };
            let t = target.as_slice();
            let ok = match r.op {
                RedirOp::DupIn | RedirOp::DupOut if t == b"-" => {
                    self.close(&mut io, fd, mark);
                    true
                }
                RedirOp::DupIn | RedirOp::DupOut
                    if !t.is_empty() && t.iter().all(u8::is_ascii_digit) =>
                {
                    let n: Option<u32> = std::str::from_utf8(t).ok().and_then(|s| s.parse().ok());
                    if n == Some(fd) {
                        // `3>&3` changes nothing, open or closed (as in dash and bash).
                        continue;
                    }
                    let source = n.and_then(|n| self.source(&io, n));
                    match source.map(|s| self.point(&mut io, fd, s, mark)) {
                        Some(true) => true,
                        _ => {
                            self.diag(
                                io,
                                &format!("{}: bad file descriptor", String::from_utf8_lossy(t)),
                            );
                            return Ok(Err(1));
                        }
                    }
                }
                RedirOp::DupIn => {
                    self.diag(
                        io,
                        &format!("{}: bad file descriptor", String::from_utf8_lossy(t)),
                    );
                    return Ok(Err(1));
                }
                // `>&word` with no fd before it is bash's `&>word`.
                RedirOp::OutErr | RedirOp::DupOut if r.fd.is_none() => {
                    match self.device(&io, t, false) {
                        Some(Source::Sink(s)) => {
                            io.out = s;
                            io.err = s;
                            true
                        }
                        Some(s) => {
                            self.point(&mut io, 1, s, mark) && {
                                io.err = io.out;
                                true
                            }
                        }
                        None => false,
                    }
                }
                RedirOp::In | RedirOp::ReadWrite => match self.device(&io, t, true) {
                    Some(s) => self.point(&mut io, fd, s, mark),
                    None => false,
                },
                RedirOp::Out | RedirOp::Append | RedirOp::DupOut | RedirOp::OutErr => {
                    match self.device(&io, t, false) {
                        Some(s) => self.point(&mut io, fd, s, mark),
                        None => false,
                    }
                }
                RedirOp::HereDoc => true,
            };
            if !ok {
                self.diag(
                    io,
                    &format!(
                        "{}: cannot open: there is no file system (only /dev/null, /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd/N)",
                        String::from_utf8_lossy(t)
                    ),
                );
                return Ok(Err(1));
            }
        }
        Ok(Ok(io))
    }

    /// The streams that exist without a file system: `/dev/null`, `/dev/stdin`,
    /// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`.
    fn device(&mut self, io: &Io, path: &[u8], read: bool) -> Option<Source> {
        match path {
            b"/dev/null" if read => {
                self.inputs.push(Stdin::default());
                Some(Source::Input(self.inputs.len() - 1))
            }
            b"/dev/null" => Some(Source::Sink(None)),
            b"/dev/stdin" => self.source(io, 0),
            b"/dev/stdout" => self.source(io, 1),
            b"/dev/stderr" => self.source(io, 2),
            _ => {
                let n = path.strip_prefix(b"/dev/fd/")?;
                let n = std::str::from_utf8(n).ok()?.parse().ok()?;
                self.source(io, n)
            }
        }
    }
}
