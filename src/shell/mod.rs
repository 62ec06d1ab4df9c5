//! The shell: a POSIX sh subset that runs scripts of builtins.
