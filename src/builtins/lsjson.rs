//! `lsjson [-R] [--files-only | --dirs-only] NAME:dir`: the listing of a directory of FIFO
//! NAME as `rclone lsjson` prints it. The FIFO writes the listing itself (a `GET` of
//! `/NAME/dir/` with `Accept: application/json`, `?recursive=1` for `-R`; the S3 backend
//! envelope does); this tool asks for it and keeps the entries the filters allow. Spends
//! one step per 64 bytes of the listing.

use crate::builtins::{as_fifo_path, fifo_sub_path, Ctx};
use crate::error::{Result, Status};
use crate::host::HttpRequest;

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let (mut recursive, mut files_only, mut dirs_only) = (false, false, false);
    let mut operands = Vec::new();
    for arg in &args[1..] {
        match arg.as_slice() {
            b"-R" | b"--recursive" => recursive = true,
            b"--files-only" => files_only = true,
            b"--dirs-only" => dirs_only = true,
            a if a.starts_with(b"-") && a.len() > 1 => {
                let msg = format!("lsjson: unknown flag: {}\n", String::from_utf8_lossy(a));
                ctx.stderr.extend_from_slice(msg.as_bytes());
                return Ok(1);
            }
            _ => operands.push(arg),
        }
    }
    let [target] = operands.as_slice() else {
        ctx.stderr
            .extend_from_slice(b"lsjson: usage: lsjson [-R] [--files-only|--dirs-only] NAME:dir\n");
        return Ok(1);
    };
    let shown = String::from_utf8_lossy(target).into_owned();
    let Some((name, dir)) = as_fifo_path(target) else {
        let msg = format!("lsjson: {shown}: not a directory of a FIFO (NAME:dir)\n");
        ctx.stderr.extend_from_slice(msg.as_bytes());
        return Ok(1);
    };
    let mut url = fifo_sub_path(dir);
    if !url.ends_with('/') {
        url.push('/');
    }
    if recursive {
        url.push_str("?recursive=1");
    }
    let request = HttpRequest {
        method: "GET".into(),
        url,
        headers: vec![("Accept".into(), "application/json".into())],
        ..HttpRequest::default()
    };
    let failure = match ctx.io.net.fifo(name, request).await? {
        Ok(Some(resp)) if (200..300).contains(&resp.status) => {
            ctx.io.budget.spend_bytes(resp.body.len())?;
            let listing = if files_only || dirs_only {
                keep(
                    &resp.body,
                    if files_only {
                        b"\"IsDir\":false}"
                    } else {
                        b"\"IsDir\":true}"
                    },
                )
            } else {
                resp.body
            };
            ctx.stdout.extend_from_slice(&listing);
            return Ok(0);
        }
        Ok(Some(resp)) if resp.status == 404 => "directory not found".to_string(),
        Ok(Some(resp)) => format!("{name} answered {}", resp.status),
        Ok(None) => format!("no FIFO named {name}"),
        Err(reason) => reason,
    };
    let msg = format!("lsjson: {shown}: {failure}\n");
    ctx.stderr.extend_from_slice(msg.as_bytes());
    Ok(3)
}

/// The listing with only the entries whose line holds `mark`: lsjson's framing puts one
/// entry on each line (`[`, entries joined by `,\n`, `]`), and `IsDir` ends an entry
/// without Hashes or other optional fields after it.
fn keep(listing: &[u8], mark: &[u8]) -> Vec<u8> {
    let entries: Vec<&[u8]> = listing
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b",").unwrap_or(line))
        .filter(|line| line.starts_with(b"{") && line.windows(mark.len()).any(|w| w == mark))
        .collect();
    let mut out = b"[\n".to_vec();
    out.extend_from_slice(&entries.join(&b",\n"[..]));
    if !entries.is_empty() {
        out.push(b'\n');
    }
    out.extend_from_slice(b"]\n");
    out
}

#[cfg(test)]
mod tests {
    use super::keep;

    #[test]
    fn filters_keep_the_framing() {
        let listing = b"[\n{\"Path\":\"a\",\"IsDir\":false},\n{\"Path\":\"d\",\"IsDir\":true}\n]\n";
        assert_eq!(
            keep(listing, b"\"IsDir\":false}"),
            b"[\n{\"Path\":\"a\",\"IsDir\":false}\n]\n"
        );
        assert_eq!(
            keep(listing, b"\"IsDir\":true}"),
            b"[\n{\"Path\":\"d\",\"IsDir\":true}\n]\n"
        );
        assert_eq!(keep(b"[\n]\n", b"\"IsDir\":true}"), b"[\n]\n");
    }
}
