//! The envelopes that ship with mkfifo (`envelopes/` in the repository), installed by
//! `PUT /_/api/fifos/NAME?from=LIBRARY_NAME`.

/// The library: each envelope's name and text.
const LIBRARY: &[(&str, &str)] = &[("s3", include_str!("../../envelopes/s3"))];

/// The text of library envelope `name`.
pub fn envelope(name: &str) -> Option<&'static str> {
    LIBRARY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The names of the library's envelopes, for an error message.
pub fn names() -> Vec<&'static str> {
    LIBRARY.iter().map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Shell;

    #[test]
    fn every_library_envelope_compiles() {
        for name in names() {
            let text = envelope(name).unwrap();
            if let Err(e) = crate::envelope::compile(text, &mut Shell::default()) {
                panic!("envelopes/{name}: {e}");
            }
        }
        assert_eq!(envelope("nope"), None);
    }
}
