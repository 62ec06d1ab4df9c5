//! The shell's state: variables, functions, positional parameters and options. Cloning
//! it is cheap (shared maps, copied on first write), which makes subshells cheap.

use std::collections::HashMap;
use std::rc::Rc;

use super::ast::{FuncDef, ParamName};
use super::options::Options;
use crate::builtins::Vars;
use crate::error::Status;

#[derive(Debug, Clone, Default)]
pub struct Var {
    /// `None`: declared (`local x`, `export x`) but unset.
    pub value: Option<Vec<u8>>,
    pub exported: bool,
    pub readonly: bool,
}

/// What `$$` expands to: there are no processes, so any fixed number does.
pub const PID: u32 = 4242;

#[derive(Debug, Clone, Default)]
pub struct State {
    pub vars: Rc<HashMap<Vec<u8>, Var>>,
    pub funcs: Rc<HashMap<Vec<u8>, Rc<FuncDef>>>,
    pub params: Rc<Vec<Vec<u8>>>,
    pub arg0: Rc<Vec<u8>>,
    /// `$?`
    pub status: Status,
    pub opts: Options,
    /// Saved values of `local` variables, one frame per function call.
    pub frames: Vec<Vec<(Vec<u8>, Option<Var>)>>,
    /// Enclosing loops (for `break` and `continue`).
    pub loops: u32,
    /// `trap` actions by condition (`EXIT`, `INT`...), in signal-number order.
    pub traps: Rc<Vec<(&'static str, Vec<u8>)>>,
    /// `umask`, once set (there are no files it applies to; it is only remembered).
    pub umask: Option<u32>,
}

impl State {
    pub fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.vars.get(name).and_then(|v| v.value.as_deref())
    }

    /// IFS, or `None` when unset (then splitting uses space, tab, newline).
    pub fn ifs(&self) -> Option<Vec<u8>> {
        self.get(b"IFS").map(<[u8]>::to_vec)
    }

    /// Sets a variable; `Err` with bash's message when it is read-only.
    pub fn set(&mut self, name: &[u8], value: Vec<u8>) -> Result<(), String> {
        let vars = Rc::make_mut(&mut self.vars);
        match vars.get_mut(name) {
            Some(v) if v.readonly => Err(format!(
                "{}: readonly variable",
                String::from_utf8_lossy(name)
            )),
            Some(v) => {
                v.value = Some(value);
                Ok(())
            }
            None => {
                vars.insert(
                    name.to_vec(),
                    Var {
                        value: Some(value),
                        exported: false,
                        readonly: false,
                    },
                );
                Ok(())
            }
        }
    }

    pub fn var_mut(&mut self, name: &[u8]) -> &mut Var {
        Rc::make_mut(&mut self.vars)
            .entry(name.to_vec())
            .or_default()
    }

    pub fn unset(&mut self, name: &[u8]) -> Result<(), String> {
        match self.vars.get(name) {
            None => Ok(()),
            Some(v) if v.readonly => Err(format!(
                "{}: cannot unset: readonly variable",
                String::from_utf8_lossy(name)
            )),
            Some(_) => {
                let vars = Rc::make_mut(&mut self.vars);
                if self.frames.iter().any(|f| f.iter().any(|(n, _)| n == name)) {
                    // A local stays declared in its frame, so that returning restores
                    // the outer value.
                    if let Some(v) = vars.get_mut(name) {
                        v.value = None;
                    }
                } else {
                    vars.remove(name);
                }
                Ok(())
            }
        }
    }

    /// Saves `name` in the current function frame (once), for `local` and temporary
    /// assignments.
    pub fn save_local(&mut self, name: &[u8]) -> bool {
        let current = self.vars.get(name).cloned();
        let Some(frame) = self.frames.last_mut() else {
            return false;
        };
        if !frame.iter().any(|(n, _)| n == name) {
            frame.push((name.to_vec(), current));
        }
        true
    }

    /// Restores the variables saved in a frame.
    pub fn restore(&mut self, saved: Vec<(Vec<u8>, Option<Var>)>) {
        let vars = Rc::make_mut(&mut self.vars);
        for (name, old) in saved.into_iter().rev() {
            match old {
                Some(v) => {
                    vars.insert(name, v);
                }
                None => {
                    vars.remove(&name);
                }
            }
        }
    }

    /// The value of a parameter (not `$@`/`$*` lists: those are joined with spaces).
    pub fn param(&self, name: &ParamName) -> Option<Vec<u8>> {
        match name {
            ParamName::Var(n) => self.get(n).map(<[u8]>::to_vec),
            ParamName::Positional(0) => Some(self.arg0.to_vec()),
            ParamName::Positional(i) => self.params.get(i - 1).cloned(),
            ParamName::Special(c) => Some(match c {
                b'?' => self.status.to_string().into_bytes(),
                b'#' => self.params.len().to_string().into_bytes(),
                b'$' => PID.to_string().into_bytes(),
                b'!' => return None,
                b'-' => self.flags().into_bytes(),
                b'@' | b'*' => {
                    if self.params.is_empty() {
                        return None;
                    }
                    // `$*` is joined by the first byte of IFS (none when IFS is empty).
                    let sep = match (c, self.get(b"IFS")) {
                        (b'*', Some(ifs)) => ifs.get(..1).unwrap_or_default(),
                        _ => b" ",
                    };
                    self.params.join(sep)
                }
                _ => return None,
            }),
        }
    }

    /// `$-`: the options' letters, and `c` (every script here is given as with `sh -c`).
    pub fn flags(&self) -> String {
        let mut f = self.opts.letters();
        f.push('c');
        f
    }

    pub fn func(&self, name: &[u8]) -> Option<Rc<FuncDef>> {
        self.funcs.get(name).cloned()
    }
}

impl Vars for State {
    fn get(&self, name: &[u8]) -> Option<&[u8]> {
        State::get(self, name)
    }

    fn exported(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out: Vec<(Vec<u8>, Vec<u8>)> = self
            .vars
            .iter()
            .filter(|(_, v)| v.exported)
            .filter_map(|(k, v)| Some((k.clone(), v.value.clone()?)))
            .collect();
        out.sort();
        out
    }
}

impl super::arith::Env for State {
    fn get_var(&self, name: &[u8]) -> Option<Vec<u8>> {
        self.get(name).map(<[u8]>::to_vec)
    }

    fn set_var(&mut self, name: &[u8], value: i64) -> Result<(), String> {
        self.set(name, value.to_string().into_bytes())
    }
}
