//! `secretbox`, `scrypt` and `cryptname` against the real rclone: files rclone crypt wrote
//! open with `secretbox -d -K <key from scrypt>`, sealing again with the file's nonce gives
//! rclone's bytes back, files `secretbox` sealed are read by `rclone cat`, broken files fail
//! with rclone's own words, and names encrypt as `rclone cryptdecode --reverse` does.
//!
//! rclone is found through `RCLONE` (the binary), then the directories of
//! `MKFIFO_REF_PATH`, then `PATH`; without it the test says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use mkfifo::builtins::testing::run;

fn find_rclone() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RCLONE") {
        return Some(PathBuf::from(p));
    }
    let dirs = [
        std::env::var("MKFIFO_REF_PATH").unwrap_or_default(),
        std::env::var("PATH").unwrap_or_default(),
    ];
    dirs.iter()
        .flat_map(|d| d.split(':').map(str::to_owned).collect::<Vec<_>>())
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(&d).join("rclone"))
        .find(|p| p.is_file())
}

/// A small deterministic generator, so failures repeat.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

struct Rclone {
    bin: PathBuf,
    conf: PathBuf,
}

impl Rclone {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new(&self.bin)
            .arg("--config")
            .arg(&self.conf)
            .args(args)
            .output()
            .expect("run rclone")
    }

    fn obscure(&self, pw: &str) -> String {
        let out = Command::new(&self.bin)
            .args(["obscure", pw])
            .output()
            .expect("rclone obscure");
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }
}

fn scrypt_key(password: &str, salt: Option<&str>) -> String {
    let mut args = vec!["scrypt"];
    if let Some(s) = salt {
        args.extend(["-s", s]);
    }
    args.push(password);
    let r = run(&args, b"").unwrap();
    assert_eq!(r.status, 0);
    let hex = r.stdout_str();
    assert_eq!(hex.len(), 161);
    hex[..64].to_string()
}

#[test]
fn rclone_crypt_files() {
    let Some(bin) = find_rclone() else {
        eprintln!("SKIPPED: rclone not found (set RCLONE or MKFIFO_REF_PATH)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("mkfifo-rclone-crypt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (plain, enc, enc2) = (dir.join("plain"), dir.join("enc"), dir.join("enc2"));
    for d in [&plain, &enc, &enc2] {
        std::fs::create_dir_all(d).unwrap();
    }
    let mut rc = Rclone {
        bin,
        conf: dir.join("rclone.conf"),
    };
    std::fs::write(&rc.conf, "").unwrap();
    let password = "fixture-password-1";
    let (password2, salt) = ("other-pass", "fixture-salt-2");
    let conf = format!(
        "[c]\ntype = crypt\nremote = {}\nfilename_encryption = off\npassword = {}\n\n\
         [s]\ntype = crypt\nremote = {}\nfilename_encryption = off\npassword = {}\npassword2 = {}\n",
        enc.display(),
        rc.obscure(password),
        enc2.display(),
        rc.obscure(password2),
        rc.obscure(salt),
    );
    rc.conf = dir.join("rclone.conf");
    std::fs::write(&rc.conf, conf).unwrap();

    let sizes = [0usize, 1, 100, 65535, 65536, 65537, 131072, 200000];
    for (i, &n) in sizes.iter().enumerate() {
        std::fs::write(plain.join(format!("f{n}")), bytes(i as u64 + 1, n)).unwrap();
    }
    for remote in ["c:", "s:"] {
        let out = rc.cmd(&["copy", plain.to_str().unwrap(), remote]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let key = scrypt_key(password, None);
    let key2 = scrypt_key(password2, Some(salt));
    assert_eq!(
        key, "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323",
        "the data key real rclone derives from this password"
    );
    for (i, &n) in sizes.iter().enumerate() {
        let want = bytes(i as u64 + 1, n);
        for (dir, key) in [(&enc, &key), (&enc2, &key2)] {
            let file = std::fs::read(dir.join(format!("f{n}.bin"))).unwrap();
            assert_eq!(file.len(), 32 + n + 16 * n.div_ceil(65536), "size of f{n}");
            // rclone's file opens.
            let opened = run(&["secretbox", "-d", "-K", key], &file).unwrap();
            assert_eq!(opened.status, 0, "{}", opened.stderr_str());
            assert_eq!(opened.stdout, want, "f{n} opened");
            // Sealing with its nonce gives rclone's bytes.
            let nonce = data_encoding::HEXLOWER.encode(&file[8..32]);
            let sealed = run(&["secretbox", "-K", key, "-n", &nonce], &want).unwrap();
            assert_eq!(sealed.stdout, file, "f{n} sealed again");
        }
        // What we seal (with a nonce of our own), rclone reads.
        let ours = run(&["secretbox", "-K", &key], &want).unwrap().stdout;
        std::fs::write(enc.join(format!("ours{n}.bin")), &ours).unwrap();
        let out = rc.cmd(&["cat", &format!("c:ours{n}")]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, want, "rclone cat of ours{n}");
    }

    // Broken files: rclone and secretbox give the same reason.
    let good = std::fs::read(enc.join("f200000.bin")).unwrap();
    let wrong_key = scrypt_key("not-the-password", None);
    let mut bad_magic = good.clone();
    bad_magic[0] = b'X';
    let mut flipped = good.clone();
    flipped[100_000] ^= 0x40;
    let broken: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "short",
            good[..20].to_vec(),
            &key,
            "file is too short to be encrypted",
        ),
        (
            "magic",
            bad_magic,
            &key,
            "not an encrypted file - bad magic string",
        ),
        (
            "trunc",
            good[..32 + 65552 + 10].to_vec(),
            &key,
            "file has truncated block header",
        ),
        (
            "flip",
            flipped,
            &key,
            "failed to authenticate decrypted block - bad password?",
        ),
        (
            "key",
            good.clone(),
            &wrong_key,
            "failed to authenticate decrypted block - bad password?",
        ),
    ];
    for (name, data, key, reason) in broken {
        let r = run(&["secretbox", "-d", "-K", key], &data).unwrap();
        assert_eq!(r.status, 1, "{name}");
        assert_eq!(r.stderr_str(), format!("secretbox: {reason}\n"), "{name}");
        std::fs::write(enc.join(format!("broken-{name}.bin")), &data).unwrap();
        if *key == wrong_key {
            continue; // rclone has the right key: that file is fine for it
        }
        let out = rc.cmd(&["cat", &format!("c:broken-{name}")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(reason), "rclone on {name}: {stderr}");
        // What both wrote before the failure agrees too.
        assert_eq!(r.stdout, out.stdout, "output before the failure, {name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Names of every length up to EME's limit, in many alphabets, and paths of several
/// segments (empty ones too).
fn names() -> Vec<String> {
    let alphabet: Vec<char> = "aZ09 -_.~%+#&<>'\"!@$()[]{};,=éßøπжЖ中文字😀\u{7f}\t"
        .chars()
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for len in (1..=40).chain([63, 64, 65, 100, 127, 128, 129, 200, 255, 400, 1000, 2047]) {
        // A name of `len` bytes at most, rclone's limit being on bytes.
        let mut name = String::new();
        loop {
            let c = alphabet[next(alphabet.len() as u64) as usize];
            if name.len() + c.len_utf8() > len {
                break;
            }
            name.push(c);
        }
        if name.is_empty() {
            name.push('a');
        }
        out.push(name);
    }
    for i in 0..40 {
        let segs = 1 + next(5) as usize;
        let path: Vec<String> = (0..segs)
            .map(|j| {
                if next(6) == 0 {
                    String::new()
                } else {
                    format!("d{i}-{j}{}", "ж".repeat(next(12) as usize))
                }
            })
            .collect();
        out.push(path.join("/"));
    }
    out.extend(["sub/hello.txt", "/lead", "trail/", "a//b", "Ⅻ/.hidden"].map(String::from));
    out
}

#[test]
fn rclone_crypt_names() {
    let Some(bin) = find_rclone() else {
        eprintln!("SKIPPED: rclone not found (set RCLONE or MKFIFO_REF_PATH)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("mkfifo-rclone-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rc = Rclone {
        bin,
        conf: dir.join("empty.conf"),
    };
    std::fs::write(&rc.conf, "").unwrap();
    let (password, salt) = ("fixture-password-2", "fixture-salt-2");
    let conf = format!(
        "[std]\ntype = crypt\nremote = {d}\npassword = {p}\npassword2 = {s}\n\n\
         [b64]\ntype = crypt\nremote = {d}\npassword = {p}\npassword2 = {s}\nfilename_encoding = base64\n\n\
         [files]\ntype = crypt\nremote = {d}\npassword = {p}\npassword2 = {s}\ndirectory_name_encryption = false\n\n\
         [nosalt]\ntype = crypt\nremote = {d}\npassword = {p}\n",
        d = dir.display(),
        p = rc.obscure(password),
        s = rc.obscure(salt),
    );
    rc.conf = dir.join("rclone.conf");
    std::fs::write(&rc.conf, conf).unwrap();
    let keys = |salt: Option<&str>| {
        let mut args = vec!["scrypt"];
        if let Some(s) = salt {
            args.extend(["-s", s]);
        }
        args.push(password);
        run(&args, b"").unwrap().stdout_str().trim_end().to_string()
    };
    let (salted, unsalted) = (keys(Some(salt)), keys(None));
    let names = names();
    let cases: [(&str, &str, &[&str]); 4] = [
        ("std", &salted, &[]),
        ("b64", &salted, &["-e", "base64"]),
        ("files", &salted, &["-D"]),
        ("nosalt", &unsalted, &[]),
    ];
    for (remote, key, opts) in cases {
        // cryptdecode takes at most 10 names a run.
        let remote_arg = format!("{remote}:");
        let mut text = String::new();
        for chunk in names.chunks(10) {
            let mut args: Vec<&str> = vec!["cryptdecode", "--reverse", &remote_arg, "--"];
            args.extend(chunk.iter().map(String::as_str));
            let out = rc.cmd(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            text.push_str(&String::from_utf8(out.stdout).unwrap());
        }
        let want: Vec<&str> = text
            .lines()
            .map(|l| l.split_once(" \t ").map(|(_, e)| e).unwrap_or("?"))
            .collect();
        assert_eq!(want.len(), names.len(), "{remote}: {text}");

        let mut ours: Vec<&str> = vec!["cryptname", "-K", key];
        ours.extend(opts);
        ours.push("--");
        ours.extend(names.iter().map(String::as_str));
        let r = run(&ours, b"").unwrap();
        assert_eq!((r.status, r.stderr_str()), (0, String::new()), "{remote}");
        let got = r.stdout_str();
        let got: Vec<&str> = got.lines().collect();
        for ((name, w), g) in names.iter().zip(&want).zip(&got) {
            assert_eq!(g, w, "{remote}: the name {name:?}");
        }

        // And back, from stdin, as a listing would come.
        let mut back: Vec<&str> = vec!["cryptname", "-d", "-K", key];
        back.extend(opts);
        let listing = want.join("\n") + "\n";
        let r = run(&back, listing.as_bytes()).unwrap();
        assert_eq!(
            (r.status, r.stderr_str()),
            (0, String::new()),
            "{remote} -d"
        );
        assert_eq!(r.stdout_str(), names.join("\n") + "\n", "{remote} -d");
    }
    // A name that rclone cannot decrypt, cryptname cannot either.
    let out = rc.cmd(&["cryptdecode", "std:", "zzzz", "0123456789abcdef"]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .matches("Failed to decrypt")
            .count()
            == 2
    );
    let r = run(
        &["cryptname", "-d", "-K", &salted, "zzzz", "0123456789abcdef"],
        b"",
    )
    .unwrap();
    assert_eq!((r.status, r.stdout_str()), (1, "\n\n".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}
