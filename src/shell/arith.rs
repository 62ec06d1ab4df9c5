//! Arithmetic expansion `$((...))`: the C operators on 64-bit integers, as bash does them
//! (wrapping, `**`, `base#digits`, variables evaluated by name).

/// What arithmetic reads and writes variables through.
pub trait Env {
    fn get_var(&self, name: &[u8]) -> Option<Vec<u8>>;
    fn set_var(&mut self, name: &[u8], value: i64) -> Result<(), String>;
}

/// An arithmetic error in bash's words (without the `sh: line N: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithError(pub String);

const MAX_DEPTH: u32 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum T {
    Num(i64),
    Name(usize, usize),
    Op(&'static str),
    End,
}

const OPS: &[&str] = &[
    "<<=", ">>=", "**", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*=", "/=",
    "%=", "+=", "-=", "&=", "^=", "|=", "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!", "~",
    "?", ":", "=", "(", ")", ",",
];

struct P<'a, 'e> {
    src: &'a [u8],
    pos: usize,
    tok: T,
    tok_start: usize,
    env: &'e mut dyn Env,
    depth: u32,
}

/// Evaluates `expr` (already expanded). An empty expression is 0.
pub fn eval(expr: &[u8], env: &mut dyn Env) -> Result<i64, ArithError> {
    eval_depth(expr, env, 0)
}

fn eval_depth(expr: &[u8], env: &mut dyn Env, depth: u32) -> Result<i64, ArithError> {
    let mut p = P {
        src: expr,
        pos: 0,
        tok: T::End,
        tok_start: 0,
        env,
        depth,
    };
    p.advance()?;
    if p.tok == T::End {
        return Ok(0);
    }
    let v = p.comma(false)?;
    if p.tok != T::End {
        return Err(p.error("syntax error in expression"));
    }
    Ok(v)
}

impl P<'_, '_> {
    fn error(&self, msg: &str) -> ArithError {
        let expr = String::from_utf8_lossy(trim(self.src));
        let rest = String::from_utf8_lossy(trim(&self.src[self.tok_start.min(self.src.len())..]));
        ArithError(format!("{expr}: {msg} (error token is \"{rest}\")"))
    }

    fn advance(&mut self) -> Result<(), ArithError> {
        while self.pos < self.src.len()
            && matches!(self.src[self.pos], b' ' | b'\t' | b'\n' | b'\r')
        {
            self.pos += 1;
        }
        self.tok_start = self.pos;
        let rest = &self.src[self.pos..];
        let Some(&c) = rest.first() else {
            self.tok = T::End;
            return Ok(());
        };
        if c.is_ascii_digit() {
            let n = rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'#' | b'@' | b'_'))
                .count();
            let text = &rest[..n];
            self.pos += n;
            self.tok = T::Num(self.number(text)?);
            return Ok(());
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let n = rest
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            self.tok = T::Name(self.pos, self.pos + n);
            self.pos += n;
            return Ok(());
        }
        for op in OPS {
            if rest.starts_with(op.as_bytes()) {
                self.pos += op.len();
                self.tok = T::Op(op);
                return Ok(());
            }
        }
        Err(self.error("syntax error: invalid arithmetic operator"))
    }

    fn number(&self, text: &[u8]) -> Result<i64, ArithError> {
        let (base, digits): (u32, &[u8]) =
            if let Some(h) = text.strip_prefix(b"0x").or(text.strip_prefix(b"0X")) {
                (16, h)
            } else if let Some(i) = memchr::memchr(b'#', text) {
                let b = std::str::from_utf8(&text[..i])
                    .ok()
                    .and_then(|s| s.parse::<u32>().ok());
                match b {
                    Some(b) if (2..=64).contains(&b) => (b, &text[i + 1..]),
                    _ => return Err(self.error("invalid arithmetic base")),
                }
            } else if text.len() > 1 && text[0] == b'0' {
                (8, &text[1..])
            } else {
                (10, text)
            };
        if digits.is_empty() && base != 8 {
            return Err(self.error("invalid integer constant"));
        }
        let mut v: i64 = 0;
        for &d in digits {
            let dv = match d {
                b'0'..=b'9' => u32::from(d - b'0'),
                b'a'..=b'z' => u32::from(d - b'a') + 10,
                b'A'..=b'Z' => u32::from(d - b'A') + if base <= 36 { 10 } else { 36 },
                b'@' => 62,
                b'_' => 63,
                _ => 99,
            };
            if dv >= base {
                let tok = String::from_utf8_lossy(text);
                return Err(ArithError(format!(
                    "{tok}: value too great for base (error token is \"{tok}\")"
                )));
            }
            v = v.wrapping_mul(i64::from(base)).wrapping_add(i64::from(dv));
        }
        Ok(v)
    }

    fn is_op(&self, op: &'static str) -> bool {
        self.tok == T::Op(op)
    }

    fn name_value(&mut self, s: usize, e: usize) -> Result<i64, ArithError> {
        let name = &self.src[s..e];
        let Some(val) = self.env.get_var(name) else {
            return Ok(0);
        };
        if val.is_empty() {
            return Ok(0);
        }
        if self.depth >= MAX_DEPTH {
            return Err(ArithError(format!(
                "{}: expression recursion level exceeded (error token is \"{}\")",
                String::from_utf8_lossy(name),
                String::from_utf8_lossy(name)
            )));
        }
        eval_depth(&val, self.env, self.depth + 1)
    }

    fn comma(&mut self, skip: bool) -> Result<i64, ArithError> {
        let mut v = self.assign(skip)?;
        while self.is_op(",") {
            self.advance()?;
            v = self.assign(skip)?;
        }
        Ok(v)
    }

    fn assign(&mut self, skip: bool) -> Result<i64, ArithError> {
        if let T::Name(s, e) = self.tok {
            // Look ahead for an assignment operator without consuming.
            let save = (self.pos, self.tok, self.tok_start);
            self.advance()?;
            if let T::Op(op) = self.tok {
                if is_assign_op(op) {
                    self.advance()?;
                    // bash reads the variable before it evaluates the right side.
                    let cur = if op == "=" || skip {
                        0
                    } else {
                        self.name_value(s, e)?
                    };
                    let rhs = self.assign(skip)?;
                    if skip {
                        return Ok(0);
                    }
                    let v = if op == "=" {
                        rhs
                    } else {
                        let at = self.tok_start;
                        self.binary(&op[..op.len() - 1], cur, rhs).map_err(|e| {
                            if e.0.is_empty() {
                                self.div_zero(at)
                            } else {
                                e
                            }
                        })?
                    };
                    let name = self.src[s..e].to_vec();
                    self.env.set_var(&name, v).map_err(ArithError)?;
                    return Ok(v);
                }
            }
            (self.pos, self.tok, self.tok_start) = save;
        }
        let v = self.ternary(skip)?;
        if let T::Op(op) = self.tok {
            if is_assign_op(op) {
                return Err(self.error("attempted assignment to non-variable"));
            }
        }
        Ok(v)
    }

    fn div_zero(&self, at: usize) -> ArithError {
        let rest = String::from_utf8_lossy(trim(&self.src[at.min(self.src.len())..])).into_owned();
        let expr = String::from_utf8_lossy(trim(self.src)).into_owned();
        ArithError(format!("{expr}: division by 0 (error token is \"{rest}\")"))
    }

    fn ternary(&mut self, skip: bool) -> Result<i64, ArithError> {
        let c = self.binop(0, skip)?;
        if !self.is_op("?") {
            return Ok(c);
        }
        self.advance()?;
        let a = self.comma(skip || c == 0)?;
        if !self.is_op(":") {
            return Err(self.error("`:' expected for conditional expression"));
        }
        self.advance()?;
        // bash: the third operand takes no assignment (`a ? b : c = d` is an error).
        let b = self.ternary(skip || c != 0)?;
        Ok(if c != 0 { a } else { b })
    }

    fn binop(&mut self, level: usize, skip: bool) -> Result<i64, ArithError> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", ">", "<=", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level >= LEVELS.len() {
            return self.power(skip);
        }
        let mut v = self.binop(level + 1, skip)?;
        while let T::Op(op) = self.tok {
            if !LEVELS[level].contains(&op) {
                break;
            }
            let at = self.tok_start;
            self.advance()?;
            if op == "||" {
                let r = self.binop(level + 1, skip || v != 0)?;
                v = i64::from(v != 0 || r != 0);
                continue;
            }
            if op == "&&" {
                let r = self.binop(level + 1, skip || v == 0)?;
                v = i64::from(v != 0 && r != 0);
                continue;
            }
            let r = self.binop(level + 1, skip)?;
            if skip {
                continue;
            }
            v = self.binary(op, v, r).map_err(|e| {
                if e.0.is_empty() {
                    let mut p_err = self.error("division by 0");
                    let rest =
                        String::from_utf8_lossy(trim(&self.src[at + op.len()..])).into_owned();
                    let expr = String::from_utf8_lossy(trim(self.src)).into_owned();
                    p_err.0 = format!("{expr}: division by 0 (error token is \"{rest}\")");
                    p_err
                } else {
                    e
                }
            })?;
        }
        Ok(v)
    }

    /// Applies a binary operator; division by zero gives an empty error for the caller
    /// to word.
    fn binary(&self, op: &str, a: i64, b: i64) -> Result<i64, ArithError> {
        Ok(match op {
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "/" | "%" => {
                if b == 0 {
                    return Err(ArithError(String::new()));
                }
                if op == "/" {
                    a.wrapping_div(b)
                } else {
                    a.wrapping_rem(b)
                }
            }
            "<<" => a.wrapping_shl((b & 63) as u32),
            ">>" => a.wrapping_shr((b & 63) as u32),
            "&" => a & b,
            "|" => a | b,
            "^" => a ^ b,
            "==" => i64::from(a == b),
            "!=" => i64::from(a != b),
            "<" => i64::from(a < b),
            ">" => i64::from(a > b),
            "<=" => i64::from(a <= b),
            ">=" => i64::from(a >= b),
            _ => return Err(self.error("syntax error in expression")),
        })
    }

    fn power(&mut self, skip: bool) -> Result<i64, ArithError> {
        let base = self.unary(skip)?;
        if !self.is_op("**") {
            return Ok(base);
        }
        self.advance()?;
        let exp = self.power(skip)?;
        if skip {
            return Ok(0);
        }
        if exp < 0 {
            return Err(self.error("exponent less than 0"));
        }
        let mut r: i64 = 1;
        let mut b = base;
        let mut e = exp;
        while e > 0 {
            if e & 1 == 1 {
                r = r.wrapping_mul(b);
            }
            b = b.wrapping_mul(b);
            e >>= 1;
        }
        Ok(r)
    }

    fn unary(&mut self, skip: bool) -> Result<i64, ArithError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH * 2 {
            return Err(self.error("expression recursion level exceeded"));
        }
        let r = self.unary_inner(skip);
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self, skip: bool) -> Result<i64, ArithError> {
        match self.tok {
            T::Op(op @ ("++" | "--"))
                if !self
                    .src
                    .get(self.tok_start + 2)
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_') =>
            {
                // `++` not before a name is two signs: bash reads `+++x` as `+ ++x`.
                self.pos = self.tok_start + 1;
                self.tok = T::Op(if op == "++" { "+" } else { "-" });
                self.unary(skip)
            }
            T::Op(op @ ("++" | "--")) => {
                self.advance()?;
                let T::Name(s, e) = self.tok else {
                    return Err(self.error("syntax error: operand expected"));
                };
                self.advance()?;
                if skip {
                    return Ok(0);
                }
                let v = self.name_value(s, e)?;
                let v = if op == "++" {
                    v.wrapping_add(1)
                } else {
                    v.wrapping_sub(1)
                };
                let name = self.src[s..e].to_vec();
                self.env.set_var(&name, v).map_err(ArithError)?;
                Ok(v)
            }
            T::Op(op @ ("-" | "+" | "!" | "~")) => {
                self.advance()?;
                let v = self.unary(skip)?;
                Ok(match op {
                    "-" => v.wrapping_neg(),
                    "+" => v,
                    "!" => i64::from(v == 0),
                    _ => !v,
                })
            }
            _ => self.postfix(skip),
        }
    }

    fn postfix(&mut self, skip: bool) -> Result<i64, ArithError> {
        match self.tok {
            T::Num(n) => {
                self.advance()?;
                Ok(n)
            }
            T::Name(s, e) => {
                self.advance()?;
                if let T::Op(op @ ("++" | "--")) = self.tok {
                    self.advance()?;
                    if skip {
                        return Ok(0);
                    }
                    let v = self.name_value(s, e)?;
                    let n = if op == "++" {
                        v.wrapping_add(1)
                    } else {
                        v.wrapping_sub(1)
                    };
                    let name = self.src[s..e].to_vec();
                    self.env.set_var(&name, n).map_err(ArithError)?;
                    return Ok(v);
                }
                if skip {
                    return Ok(0);
                }
                self.name_value(s, e)
            }
            T::Op("(") => {
                self.advance()?;
                let v = self.comma(skip)?;
                if !self.is_op(")") {
                    return Err(self.error("missing `)'"));
                }
                self.advance()?;
                Ok(v)
            }
            _ => Err(self.error("syntax error: operand expected")),
        }
    }
}

fn is_assign_op(op: &str) -> bool {
    matches!(
        op,
        "=" | "*=" | "/=" | "%=" | "+=" | "-=" | "<<=" | ">>=" | "&=" | "^=" | "|="
    )
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end.max(start)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[derive(Default)]
    struct M(HashMap<Vec<u8>, Vec<u8>>);
    impl Env for M {
        fn get_var(&self, name: &[u8]) -> Option<Vec<u8>> {
            self.0.get(name).cloned()
        }
        fn set_var(&mut self, name: &[u8], value: i64) -> Result<(), String> {
            self.0.insert(name.to_vec(), value.to_string().into_bytes());
            Ok(())
        }
    }

    fn ev(s: &str) -> Result<i64, ArithError> {
        eval(s.as_bytes(), &mut M::default())
    }

    #[test]
    fn operators() {
        assert_eq!(ev("1 + 2 * 3"), Ok(7));
        assert_eq!(ev("(1 + 2) * 3"), Ok(9));
        assert_eq!(ev("2 ** 10"), Ok(1024));
        assert_eq!(ev("2 ** 3 ** 2"), Ok(512));
        assert_eq!(ev("0x1f + 010 + 2#101"), Ok(31 + 8 + 5));
        assert_eq!(ev("1 ? 2 : 3"), Ok(2));
        assert_eq!(ev("0 ? 2 : 3"), Ok(3));
        assert_eq!(ev("-7 / 2"), Ok(-3));
        assert_eq!(ev("-7 % 2"), Ok(-1));
        assert_eq!(ev("!0 + ~0"), Ok(0));
        assert_eq!(ev("1 << 4 | 1"), Ok(17));
        assert_eq!(ev("0 && 1/0"), Ok(0));
        assert_eq!(ev("1 || 1/0"), Ok(1));
        assert_eq!(ev(""), Ok(0));
        assert_eq!(ev("9223372036854775807 + 1"), Ok(i64::MIN));
    }

    #[test]
    fn variables() {
        let mut m = M::default();
        assert_eq!(eval(b"x = 5, x += 2, x++, x", &mut m), Ok(8));
        assert_eq!(eval(b"y = x-- + --x", &mut m), Ok(14));
        m.0.insert(b"e".to_vec(), b"x * 2".to_vec());
        assert_eq!(eval(b"e + 1", &mut m), Ok(13));
        m.0.insert(b"r".to_vec(), b"r".to_vec());
        assert!(eval(b"r", &mut m).is_err());
    }

    #[test]
    fn errors() {
        assert_eq!(
            ev("1/0"),
            Err(ArithError(
                "1/0: division by 0 (error token is \"0\")".into()
            ))
        );
        assert!(ev("1 +").is_err());
        assert!(ev("08").is_err());
        assert!(ev("(((((").is_err());
        assert!(ev(&"(".repeat(100_000)).is_err());
        assert!(ev(&"-".repeat(100_000)).is_err());
    }
}
