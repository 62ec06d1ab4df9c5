//! Command-line options the GNU way (`getopt_long`): clustered short options, long
//! options with `=` or a separate argument, unique abbreviations of long names, operands
//! anywhere (permuted to the end) unless `--` ends the options, and GNU's messages.

/// Whether an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    No,
    Required,
    /// Only attached: `-xVALUE` or `--name=VALUE`.
    Optional,
}

/// A long option. `short` names the short option it is another name for, if any; the
/// parsed option is then reported under the short name.
#[derive(Debug, Clone, Copy)]
pub struct Long {
    pub name: &'static str,
    pub arg: Arg,
    pub short: Option<char>,
}

/// Shorthand for a table row: `long("lines", Arg::Required, Some('n'))`.
pub const fn long(name: &'static str, arg: Arg, short: Option<char>) -> Long {
    Long { name, arg, short }
}

/// A tool's options: `short` as in getopt(3) (`"n:c:qz"`, `::` for an optional argument).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub short: &'static str,
    pub long: &'static [Long],
    /// GNU permutes operands after options; tools like `printf` or `echo`-style parsing
    /// stop at the first operand instead.
    pub stop_at_operand: bool,
}

/// One parsed option: its key (the short letter as a one-character string, or the long
/// name of a long-only option) and its argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    pub key: &'static str,
    pub value: Option<Vec<u8>>,
}

impl Opt {
    /// The argument, or an empty slice for an option that has none.
    pub fn value(&self) -> &[u8] {
        self.value.as_deref().unwrap_or(b"")
    }
}

/// Options in the order given, and the operands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub opts: Vec<Opt>,
    pub operands: Vec<Vec<u8>>,
}

impl Spec {
    /// Parses `args` (without the program name). `Err` is GNU's message for the first bad
    /// option, without the `PROG: ` prefix and the "Try ..." line (see [`usage_error`]).
    pub fn parse(&self, args: &[Vec<u8>]) -> Result<Parsed, String> {
        match self.parse_in_order(args) {
            (parsed, None) => Ok(parsed),
            (_, Some(message)) => Err(message),
        }
    }

    /// As [`Spec::parse`], but also gives the options read before the first bad one: a
    /// tool that, as GNU's do, acts on each option as getopt hands it over reports a bad
    /// value of an earlier option before a bad option after it.
    pub fn parse_in_order(&self, args: &[Vec<u8>]) -> (Parsed, Option<String>) {
        let mut parsed = Parsed::default();
        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            i += 1;
            if arg == b"--" {
                parsed.operands.extend(args[i..].iter().cloned());
                break;
            }
            if arg.len() < 2 || arg[0] != b'-' {
                parsed.operands.push(arg.clone());
                if self.stop_at_operand {
                    parsed.operands.extend(args[i..].iter().cloned());
                    break;
                }
                continue;
            }
            let next = if arg.starts_with(b"--") {
                self.parse_long(arg, args, i, &mut parsed)
            } else {
                self.parse_short_cluster(arg, args, i, &mut parsed)
            };
            match next {
                Ok(next) => i = next,
                Err(message) => return (parsed, Some(message)),
            }
        }
        (parsed, None)
    }

    fn parse_long(
        &self,
        arg: &[u8],
        args: &[Vec<u8>],
        mut i: usize,
        parsed: &mut Parsed,
    ) -> Result<usize, String> {
        let body = &arg[2..];
        let (name, attached) = match body.iter().position(|&b| b == b'=') {
            Some(eq) => (&body[..eq], Some(body[eq + 1..].to_vec())),
            None => (body, None),
        };
        let shown = String::from_utf8_lossy(arg);
        let opt = self.find_long(name, &shown)?;
        let key = self.key_of(opt);
        let value = match (opt.arg, attached) {
            (Arg::No, Some(_)) => {
                return Err(format!("option '--{}' doesn't allow an argument", opt.name))
            }
            (Arg::No, None) => None,
            (_, Some(v)) => Some(v),
            (Arg::Optional, None) => None,
            (Arg::Required, None) => {
                if i >= args.len() {
                    return Err(format!("option '--{}' requires an argument", opt.name));
                }
                i += 1;
                Some(args[i - 1].clone())
            }
        };
        parsed.opts.push(Opt { key, value });
        Ok(i)
    }

    /// An exact name wins; otherwise a prefix must pick one option, or several that are
    /// all names of the same thing.
    fn find_long(&self, name: &[u8], shown: &str) -> Result<&'static Long, String> {
        if let Some(exact) = self.long.iter().find(|l| l.name.as_bytes() == name) {
            return Ok(exact);
        }
        let matches: Vec<&'static Long> = self
            .long
            .iter()
            .filter(|l| l.name.as_bytes().starts_with(name))
            .collect();
        match matches.as_slice() {
            [] => Err(format!("unrecognized option '{shown}'")),
            [one] => Ok(one),
            [first, rest @ ..] => {
                let same = rest
                    .iter()
                    .all(|l| l.short.is_some() && l.short == first.short && l.arg == first.arg);
                if same {
                    return Ok(first);
                }
                let names: Vec<String> =
                    matches.iter().map(|l| format!("'--{}'", l.name)).collect();
                let prefix = shown.split('=').next().unwrap_or(shown);
                Err(format!(
                    "option '{prefix}' is ambiguous; possibilities: {}",
                    names.join(" ")
                ))
            }
        }
    }

    fn key_of(&self, opt: &'static Long) -> &'static str {
        match opt.short {
            Some(c) => self.short_key(c).unwrap_or(opt.name),
            None => opt.name,
        }
    }

    /// The one-character key of short option `c`, borrowed from the spec string.
    fn short_key(&self, c: char) -> Option<&'static str> {
        let at = self
            .short
            .char_indices()
            .find(|&(_, ch)| ch == c && ch != ':')?
            .0;
        Some(&self.short[at..at + c.len_utf8()])
    }

    /// How short option `c` takes an argument, or `None` when there is no such option.
    fn short_arg(&self, c: u8) -> Option<Arg> {
        let spec = self.short.as_bytes();
        let at = spec.iter().position(|&b| b == c && b != b':')?;
        Some(match (spec.get(at + 1), spec.get(at + 2)) {
            (Some(b':'), Some(b':')) => Arg::Optional,
            (Some(b':'), _) => Arg::Required,
            _ => Arg::No,
        })
    }

    fn parse_short_cluster(
        &self,
        arg: &[u8],
        args: &[Vec<u8>],
        mut i: usize,
        parsed: &mut Parsed,
    ) -> Result<usize, String> {
        let mut j = 1;
        while j < arg.len() {
            let c = arg[j];
            j += 1;
            let kind = self
                .short_arg(c)
                .ok_or_else(|| format!("invalid option -- '{}'", shown_byte(c)))?;
            let key = self.short_key(c as char).expect("short_arg found it");
            let value = match kind {
                Arg::No => None,
                Arg::Optional => {
                    let v = (j < arg.len()).then(|| arg[j..].to_vec());
                    j = arg.len();
                    v
                }
                Arg::Required => {
                    if j < arg.len() {
                        let v = arg[j..].to_vec();
                        j = arg.len();
                        Some(v)
                    } else if i < args.len() {
                        i += 1;
                        Some(args[i - 1].clone())
                    } else {
                        return Err(format!(
                            "option requires an argument -- '{}'",
                            shown_byte(c)
                        ));
                    }
                }
            };
            parsed.opts.push(Opt { key, value });
        }
        Ok(i)
    }
}

fn shown_byte(c: u8) -> String {
    String::from_utf8_lossy(&[c]).into_owned()
}

/// Writes GNU's two-line complaint about bad usage to `stderr`:
/// `PROG: MESSAGE` and `Try 'PROG --help' for more information.`
pub fn usage_error(stderr: &mut Vec<u8>, prog: &str, message: &str) {
    stderr.extend_from_slice(
        format!("{prog}: {message}\nTry '{prog} --help' for more information.\n").as_bytes(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: Spec = Spec {
        short: "c:n:qvz",
        long: &[
            long("bytes", Arg::Required, Some('c')),
            long("lines", Arg::Required, Some('n')),
            long("quiet", Arg::No, Some('q')),
            long("silent", Arg::No, Some('q')),
            long("verbose", Arg::No, Some('v')),
            long("zero-terminated", Arg::No, Some('z')),
        ],
        stop_at_operand: false,
    };

    fn argv(a: &[&str]) -> Vec<Vec<u8>> {
        a.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn short_long_and_operands() {
        let p = HEAD
            .parse(&argv(&["-n3", "a", "--lines=4", "-qc", "5", "--", "-v"]))
            .unwrap();
        let keys: Vec<_> = p.opts.iter().map(|o| (o.key, o.value().to_vec())).collect();
        assert_eq!(
            keys,
            vec![
                ("n", b"3".to_vec()),
                ("n", b"4".to_vec()),
                ("q", vec![]),
                ("c", b"5".to_vec())
            ]
        );
        assert_eq!(p.operands, argv(&["a", "-v"]));
    }

    #[test]
    fn abbreviations() {
        let p = HEAD.parse(&argv(&["--li", "2", "--verb"])).unwrap();
        assert_eq!(p.opts[0].key, "n");
        assert_eq!(p.opts[1].key, "v");
        // --q and --s are both names of -q: not ambiguous.
        assert_eq!(HEAD.parse(&argv(&["--qu"])).unwrap().opts[0].key, "q");
    }

    #[test]
    fn gnu_messages() {
        assert_eq!(
            HEAD.parse(&argv(&["-x"])).unwrap_err(),
            "invalid option -- 'x'"
        );
        assert_eq!(
            HEAD.parse(&argv(&["-n"])).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        assert_eq!(
            HEAD.parse(&argv(&["--foo=1"])).unwrap_err(),
            "unrecognized option '--foo=1'"
        );
        assert_eq!(
            HEAD.parse(&argv(&["--lines"])).unwrap_err(),
            "option '--lines' requires an argument"
        );
        assert_eq!(
            HEAD.parse(&argv(&["--quiet=1"])).unwrap_err(),
            "option '--quiet' doesn't allow an argument"
        );
        assert_eq!(
            HEAD.parse(&argv(&["--ver", "--s", "--z", "--l", "5", "--b", "6"]))
                .unwrap()
                .opts
                .len(),
            5
        );
        const AMB: Spec = Spec {
            short: "",
            long: &[long("sort", Arg::No, None), long("stable", Arg::No, None)],
            stop_at_operand: false,
        };
        assert_eq!(
            AMB.parse(&argv(&["--s"])).unwrap_err(),
            "option '--s' is ambiguous; possibilities: '--sort' '--stable'"
        );
    }

    #[test]
    fn lone_dash_is_an_operand() {
        let p = HEAD.parse(&argv(&["-", "-n1"])).unwrap();
        assert_eq!(p.operands, argv(&["-"]));
    }
}
