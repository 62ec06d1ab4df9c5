//! The shell's options (`set -e`, `set -o errexit`, `sh -o errexit`, `$-`): one table of
//! names and letters, one bit set in the state.
//!
//! What each does here: `errexit`, `nounset`, `xtrace`, `noexec`, `pipefail` act; the
//! others are kept and listed but change nothing (no globbing, jobs, history or line
//! editing exist; `allexport` and `noclobber` have no files or children to act on).

/// One option: its name for `-o`, its letter if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt(u8);

impl Opt {
    pub const ALLEXPORT: Opt = Opt(0);
    pub const NOTIFY: Opt = Opt(1);
    pub const ERREXIT: Opt = Opt(2);
    pub const NOGLOB: Opt = Opt(3);
    pub const HASHALL: Opt = Opt(4);
    pub const MONITOR: Opt = Opt(5);
    pub const NOEXEC: Opt = Opt(6);
    pub const NOUNSET: Opt = Opt(7);
    pub const VERBOSE: Opt = Opt(8);
    pub const XTRACE: Opt = Opt(9);
    pub const BRACEEXPAND: Opt = Opt(10);
    pub const NOCLOBBER: Opt = Opt(11);
    pub const IGNOREEOF: Opt = Opt(12);
    pub const NOLOG: Opt = Opt(13);
    pub const PIPEFAIL: Opt = Opt(14);
    pub const POSIX: Opt = Opt(15);
    pub const VI: Opt = Opt(16);
    pub const EMACS: Opt = Opt(17);
    pub const KEYWORD: Opt = Opt(18);
    pub const PRIVILEGED: Opt = Opt(19);
    pub const ONECMD: Opt = Opt(20);
    pub const ERRTRACE: Opt = Opt(21);
    pub const HISTEXPAND: Opt = Opt(22);
    pub const PHYSICAL: Opt = Opt(23);
    pub const FUNCTRACE: Opt = Opt(24);
    pub const HISTORY: Opt = Opt(25);
    pub const INTERACTIVE_COMMENTS: Opt = Opt(26);
}

/// Every option, in the order `$-` shows the letters (bash's: `ehuxBc` for `set -eux`).
/// POSIX's, then bash's own (`-k -p -t -E -H -P -T`, taken so that bash scripts that set
/// them run).
const TABLE: &[(Opt, Option<u8>, &str)] = &[
    (Opt::ALLEXPORT, Some(b'a'), "allexport"),
    (Opt::NOTIFY, Some(b'b'), "notify"),
    (Opt::ERREXIT, Some(b'e'), "errexit"),
    (Opt::NOGLOB, Some(b'f'), "noglob"),
    (Opt::HASHALL, Some(b'h'), "hashall"),
    (Opt::KEYWORD, Some(b'k'), "keyword"),
    (Opt::MONITOR, Some(b'm'), "monitor"),
    (Opt::NOEXEC, Some(b'n'), "noexec"),
    (Opt::PRIVILEGED, Some(b'p'), "privileged"),
    (Opt::ONECMD, Some(b't'), "onecmd"),
    (Opt::NOUNSET, Some(b'u'), "nounset"),
    (Opt::VERBOSE, Some(b'v'), "verbose"),
    (Opt::XTRACE, Some(b'x'), "xtrace"),
    (Opt::BRACEEXPAND, Some(b'B'), "braceexpand"),
    (Opt::NOCLOBBER, Some(b'C'), "noclobber"),
    (Opt::ERRTRACE, Some(b'E'), "errtrace"),
    (Opt::HISTEXPAND, Some(b'H'), "histexpand"),
    (Opt::PHYSICAL, Some(b'P'), "physical"),
    (Opt::FUNCTRACE, Some(b'T'), "functrace"),
    (Opt::IGNOREEOF, None, "ignoreeof"),
    (Opt::NOLOG, None, "nolog"),
    (Opt::PIPEFAIL, None, "pipefail"),
    (Opt::POSIX, None, "posix"),
    (Opt::VI, None, "vi"),
    (Opt::EMACS, None, "emacs"),
    (Opt::HISTORY, None, "history"),
    (Opt::INTERACTIVE_COMMENTS, None, "interactive-comments"),
];

/// The options that are set, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options(u32);

impl Default for Options {
    /// As a non-interactive bash starts: `hashall`, `braceexpand` and
    /// `interactive-comments` on (`$-` is `hBc`).
    fn default() -> Self {
        let mut o = Options(0);
        o.set(Opt::HASHALL, true);
        o.set(Opt::BRACEEXPAND, true);
        o.set(Opt::INTERACTIVE_COMMENTS, true);
        o
    }
}

impl Options {
    pub fn on(self, o: Opt) -> bool {
        self.0 & (1 << o.0) != 0
    }

    pub fn set(&mut self, o: Opt, on: bool) {
        if on {
            self.0 |= 1 << o.0;
        } else {
            self.0 &= !(1 << o.0);
        }
    }

    pub fn by_letter(c: u8) -> Option<Opt> {
        TABLE.iter().find(|t| t.1 == Some(c)).map(|t| t.0)
    }

    pub fn by_name(name: &[u8]) -> Option<Opt> {
        TABLE.iter().find(|t| t.2.as_bytes() == name).map(|t| t.0)
    }

    /// The letters of `$-` (without the `c` of `sh -c`).
    pub fn letters(self) -> String {
        TABLE
            .iter()
            .filter(|t| self.on(t.0))
            .filter_map(|t| t.1.map(char::from))
            .collect()
    }

    /// `set -o`: every option by name and whether it is on, sorted by name (bash's form).
    pub fn listing(self) -> String {
        let mut rows: Vec<_> = TABLE.iter().collect();
        rows.sort_by_key(|t| t.2);
        rows.iter()
            .map(|t| format!("{:<15}\t{}\n", t.2, if self.on(t.0) { "on" } else { "off" }))
            .collect()
    }

    /// `set +o`: the commands that set every option back as it is now.
    pub fn commands(self) -> String {
        let mut rows: Vec<_> = TABLE.iter().collect();
        rows.sort_by_key(|t| t.2);
        rows.iter()
            .map(|t| format!("set {}o {}\n", if self.on(t.0) { '-' } else { '+' }, t.2))
            .collect()
    }
}
