//! `test` and `[`: GNU coreutils test, with POSIX's rules for 1 to 4 arguments and GNU's
//! expression grammar beyond; there is no file system, so file tests are false. Spends
//! 1 step per argument.

use crate::builtins::common::quote::quote;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

/// A syntax error: GNU's message, ending the test with status 2.
struct Syntax(Vec<u8>);

type Eval = std::result::Result<bool, Syntax>;

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let name = String::from_utf8_lossy(args.first().map_or(b"test", |a| a)).into_owned();
    let mut argv: Vec<&[u8]> = args.iter().skip(1).map(|a| a.as_slice()).collect();
    ctx.io.budget.spend(argv.len() as u64 + 1)?;
    if name == "[" {
        if argv.last() != Some(&&b"]"[..]) {
            ctx.stderr
                .extend_from_slice(format!("{name}: missing ']'\n").as_bytes());
            return Ok(2);
        }
        argv.pop();
    }
    let mut t = Test {
        argv: &argv,
        pos: 0,
        depth: 0,
    };
    match t.main() {
        Ok(true) => Ok(0),
        Ok(false) => Ok(1),
        Err(Syntax(msg)) => {
            ctx.stderr.extend_from_slice(name.as_bytes());
            ctx.stderr.extend_from_slice(b": ");
            ctx.stderr.extend_from_slice(&msg);
            ctx.stderr.push(b'\n');
            Ok(2)
        }
    }
}

struct Test<'a> {
    argv: &'a [&'a [u8]],
    pos: usize,
    /// Parentheses open around the current term: bounded, so that no argument list can
    /// exhaust the stack.
    depth: usize,
}

const MAX_DEPTH: usize = 256;

fn is_binop(s: &[u8]) -> bool {
    matches!(
        s,
        b"=" | b"=="
            | b"!="
            | b"-eq"
            | b"-ne"
            | b"-lt"
            | b"-le"
            | b"-gt"
            | b"-ge"
            | b"-ef"
            | b"-nt"
            | b"-ot"
    )
}

fn is_unop(s: &[u8]) -> bool {
    s.len() == 2 && s[0] == b'-' && b"bcdefgGhkLNOprsStuwxzn".contains(&s[1])
}

/// `-X`: a word shaped like a unary operator.
fn dash_letter(s: &[u8]) -> bool {
    s.len() == 2 && s[0] == b'-'
}

fn msg(parts: &[&[u8]]) -> Syntax {
    Syntax(parts.concat())
}

impl<'a> Test<'a> {
    fn argc(&self) -> usize {
        self.argv.len()
    }

    fn arg(&self, i: usize) -> Option<&'a [u8]> {
        self.argv.get(i).copied()
    }

    fn is(&self, i: usize, word: &[u8]) -> bool {
        self.arg(i) == Some(word)
    }

    /// "missing argument after LAST".
    fn beyond(&self) -> Syntax {
        let last = self.argv.last().copied().unwrap_or(b"");
        msg(&[b"missing argument after ", &quote(last)])
    }

    fn main(&mut self) -> Eval {
        let n = self.argc();
        if n == 0 {
            return Ok(false);
        }
        let value = if n <= 4 { self.posix(n)? } else { self.expr()? };
        if self.pos != n {
            let extra = self.arg(self.pos).unwrap_or(b"");
            return Err(msg(&[b"extra argument ", &quote(extra)]));
        }
        Ok(value)
    }

    /// POSIX's rules by the number of arguments.
    fn posix(&mut self, nargs: usize) -> Eval {
        match nargs {
            1 => Ok(self.one()),
            2 => self.two(),
            3 => self.three(),
            4 => {
                let p = self.pos;
                if self.is(p, b"!") {
                    self.pos += 1;
                    Ok(!self.three()?)
                } else if self.is(p, b"(") && self.is(p + 3, b")") {
                    self.pos += 1;
                    let v = self.two()?;
                    self.pos += 1;
                    Ok(v)
                } else {
                    self.expr()
                }
            }
            _ => self.expr(),
        }
    }

    fn one(&mut self) -> bool {
        let v = self.arg(self.pos).is_some_and(|a| !a.is_empty());
        self.pos += 1;
        v
    }

    fn two(&mut self) -> Eval {
        let p = self.pos;
        let a = self.arg(p).unwrap_or(b"");
        if a == b"!" {
            self.pos += 1;
            return Ok(!self.one());
        }
        if dash_letter(a) {
            if is_unop(a) {
                return self.unary();
            }
            return Err(msg(&[&quote(a), b": unary operator expected"]));
        }
        Err(self.beyond())
    }

    fn three(&mut self) -> Eval {
        let p = self.pos;
        let mid = self.arg(p + 1).unwrap_or(b"");
        if is_binop(mid) {
            return self.binary(false);
        }
        if self.is(p, b"!") {
            self.pos += 1;
            return Ok(!self.two()?);
        }
        if self.is(p, b"(") && self.is(p + 2, b")") {
            self.pos += 1;
            let v = self.one();
            self.pos += 1;
            return Ok(v);
        }
        if mid == b"-a" || mid == b"-o" {
            return self.expr();
        }
        Err(msg(&[&quote(mid), b": binary operator expected"]))
    }

    fn expr(&mut self) -> Eval {
        if self.pos >= self.argc() {
            return Err(self.beyond());
        }
        self.or()
    }

    /// `-o` binds loosest; both sides are always evaluated, as GNU does.
    fn or(&mut self) -> Eval {
        let mut value = false;
        loop {
            value |= self.and()?;
            if !self.is(self.pos, b"-o") {
                return Ok(value);
            }
            self.pos += 1;
        }
    }

    fn and(&mut self) -> Eval {
        let mut value = true;
        loop {
            value &= self.term()?;
            if !self.is(self.pos, b"-a") {
                return Ok(value);
            }
            self.pos += 1;
        }
    }

    fn term(&mut self) -> Eval {
        let mut invert = false;
        while self.is(self.pos, b"!") {
            self.pos += 1;
            invert = !invert;
        }
        let n = self.argc();
        if self.pos >= n {
            return Err(self.beyond());
        }
        let p = self.pos;
        let a = self.arg(p).unwrap_or(b"");
        let value = if a == b"(" {
            self.pos += 1;
            if self.pos >= n {
                return Err(self.beyond());
            }
            if self.depth >= MAX_DEPTH {
                return Err(msg(&[b"expression too deeply nested"]));
            }
            self.depth += 1;
            // Inside parentheses POSIX's rules apply again, to the words up to the
            // next `)` (at most 4 of them).
            let mut nargs = 1;
            while self.pos + nargs < n && !self.is(self.pos + nargs, b")") {
                if nargs == 4 {
                    nargs = n - self.pos;
                    break;
                }
                nargs += 1;
            }
            let v = self.posix(nargs)?;
            match self.arg(self.pos) {
                None => return Err(msg(&[&quote(b")"), b" expected"])),
                Some(b")") => {}
                Some(other) => {
                    return Err(msg(&[&quote(b")"), b" expected, found ", &quote(other)]));
                }
            }
            self.pos += 1;
            self.depth -= 1;
            v
        } else if n - p >= 4 && a == b"-l" && is_binop(self.arg(p + 2).unwrap_or(b"")) {
            self.binary(true)?
        } else if n - p >= 3 && is_binop(self.arg(p + 1).unwrap_or(b"")) {
            self.binary(false)?
        } else if dash_letter(a) {
            if !is_unop(a) {
                return Err(msg(&[&quote(a), b": unary operator expected"]));
            }
            self.unary()?
        } else {
            self.one()
        };
        Ok(value != invert)
    }

    fn unary(&mut self) -> Eval {
        let op = self.arg(self.pos).unwrap_or(b"");
        self.pos += 1;
        let Some(operand) = self.arg(self.pos) else {
            return Err(self.beyond());
        };
        self.pos += 1;
        Ok(match op {
            b"-n" => !operand.is_empty(),
            b"-z" => operand.is_empty(),
            b"-t" => {
                integer(operand)?;
                false
            }
            // No file system: no file exists.
            _ => false,
        })
    }

    /// A binary test at `pos`; `left_len`: the left side is `-l STRING`. A `-l` on
    /// either side skips a word; string tests then compare the words GNU compares
    /// (`-l a = a` is true, `a = -l a` false).
    fn binary(&mut self, left_len: bool) -> Eval {
        if left_len {
            self.pos += 1;
        }
        let op_at = self.pos + 1;
        let right_len = op_at + 2 < self.argc() && self.is(op_at + 1, b"-l");
        if right_len {
            self.pos += 1;
        }
        let p = self.pos;
        self.pos += 3;
        let op = self.arg(op_at).unwrap_or(b"");
        let word = |i: usize| self.arg(i).unwrap_or(b"");
        let side = |is_len: bool, i: usize| -> std::result::Result<Int, Syntax> {
            if is_len {
                Ok(Int {
                    neg: false,
                    digits: word(i).len().to_string().into_bytes(),
                })
            } else {
                integer(word(i))
            }
        };
        use std::cmp::Ordering::{Equal, Greater, Less};
        let want: &[std::cmp::Ordering] = match op {
            b"=" | b"==" => return Ok(word(p) == word(p + 2)),
            b"!=" => return Ok(word(p) != word(p + 2)),
            b"-eq" => &[Equal],
            b"-ne" => &[Less, Greater],
            b"-lt" => &[Less],
            b"-le" => &[Less, Equal],
            b"-gt" => &[Greater],
            b"-ge" => &[Greater, Equal],
            _ => {
                if left_len || right_len {
                    return Err(msg(&[op, b" does not accept -l"]));
                }
                // -ef, -nt, -ot: no files to compare.
                return Ok(false);
            }
        };
        let l = side(left_len, op_at - 1)?;
        let r = side(right_len, op_at + if right_len { 2 } else { 1 })?;
        Ok(want.contains(&cmp_int(&l, &r)))
    }
}

/// An integer of any size: sign and digits without leading zeros ("0" for zero).
struct Int {
    neg: bool,
    digits: Vec<u8>,
}

/// GNU test's integers: blanks, a sign, digits, blanks.
fn integer(s: &[u8]) -> std::result::Result<Int, Syntax> {
    let bad = || msg(&[b"invalid integer ", &quote(s)]);
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = s.iter().position(|b| !blank(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !blank(b)).map_or(start, |p| p + 1);
    let mut t = &s[start..end.max(start)];
    let mut neg = false;
    if let Some((&c @ (b'+' | b'-'), rest)) = t.split_first() {
        neg = c == b'-';
        t = rest;
    }
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let nz = t.iter().position(|&b| b != b'0').unwrap_or(t.len());
    let digits = if nz == t.len() {
        b"0".to_vec()
    } else {
        t[nz..].to_vec()
    };
    let neg = neg && digits != b"0";
    Ok(Int { neg, digits })
}

fn cmp_int(a: &Int, b: &Int) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let mag = |x: &Int, y: &Int| {
        x.digits
            .len()
            .cmp(&y.digits.len())
            .then_with(|| x.digits.cmp(&y.digits))
    };
    match (a.neg, b.neg) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => mag(a, b),
        (true, true) => mag(b, a),
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn t(args: &[&str]) -> (i32, String) {
        let mut argv = vec!["test"];
        argv.extend_from_slice(args);
        let r = run(&argv, b"").unwrap();
        (r.status, r.stderr_str())
    }

    // Expected values from GNU test 9.1.
    #[test]
    fn like_gnu() {
        assert_eq!(t(&[]).0, 1);
        assert_eq!(t(&[""]).0, 1);
        assert_eq!(t(&["-n"]).0, 0);
        assert_eq!(t(&["!"]).0, 0);
        assert_eq!(t(&["a", "=", "a"]).0, 0);
        assert_eq!(
            t(&["a", "-eq", "1"]),
            (2, "test: invalid integer 'a'\n".into())
        );
        assert_eq!(t(&["\t1\t", "-eq", "1"]).0, 0);
        assert_eq!(t(&["99999999999999999999999", "-gt", "1"]).0, 0);
        assert_eq!(t(&["-0", "-eq", "+0"]).0, 0);
        assert_eq!(
            t(&["a", "b"]),
            (2, "test: missing argument after 'b'\n".into())
        );
        assert_eq!(
            t(&["a", "<", "b"]),
            (2, "test: '<': binary operator expected\n".into())
        );
        assert_eq!(t(&["a", "b", "c", "d"]).1, "test: extra argument 'b'\n");
        assert_eq!(
            t(&["!", "-a", "b"]).1,
            "test: '-a': unary operator expected\n"
        );
        assert_eq!(t(&["-z", "-a", "-z"]).1, "test: extra argument '-z'\n");
        assert_eq!(
            t(&["(", "(", "a", ")", ")"]).1,
            "test: missing argument after ')'\n"
        );
        assert_eq!(t(&["a", "-a", "(", "b"]).1, "test: ')' expected\n");
        assert_eq!(t(&["-l", "-l", "-eq", "2"]).0, 0);
        assert_eq!(t(&["-l", "ab", "-gt", "-l", "a"]).0, 0);
        assert_eq!(t(&["1", "-eq", "-l"]).1, "test: invalid integer '-l'\n");
        assert_eq!(t(&["a", "-o", "x", "-eq", "1"]).0, 2);
        assert_eq!(t(&["-t", "x"]).1, "test: invalid integer 'x'\n");
        assert_eq!(t(&["-l", "a", "=", "a"]).0, 0);
        assert_eq!(t(&["a", "=", "-l", "a"]).0, 1);
        assert_eq!(
            t(&["1", "-eq", "-l", "a", "b"]).1,
            "test: extra argument 'b'\n"
        );
        assert_eq!(
            t(&["a", "-nt", "-l", "b"]).1,
            "test: -nt does not accept -l\n"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut args = vec!["test"];
        args.extend(std::iter::repeat_n("(", 100_000));
        args.push("a");
        args.extend(std::iter::repeat_n(")", 100_000));
        let r = run(&args, b"").unwrap();
        assert_eq!(r.status, 2);
    }

    #[test]
    fn bracket() {
        let r = run(&["[", "a", "=", "a"], b"").unwrap();
        assert_eq!((r.status, r.stderr_str()), (2, "[: missing ']'\n".into()));
        assert_eq!(run(&["[", "a", "=", "a", "]"], b"").unwrap().status, 0);
        assert_eq!(run(&["[", "]"], b"").unwrap().status, 1);
        assert_eq!(run(&["[", "(", "]"], b"").unwrap().status, 0);
    }
}
