//! `rcat NAME:path`: stdin becomes the file `path` of FIFO NAME (a PUT to `/NAME/path`),
//! as `rclone rcat remote:path` writes stdin to a remote. Spends one step per 64 bytes.

use crate::builtins::{as_fifo_path, fifo_sub_path, Ctx};
use crate::error::{Result, Status};
use crate::host::HttpRequest;

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let [_, target] = args else {
        ctx.stderr
            .extend_from_slice(b"rcat: usage: rcat NAME:path (stdin becomes the file)\n");
        return Ok(1);
    };
    let shown = String::from_utf8_lossy(target).into_owned();
    let Some((name, path)) = as_fifo_path(target).filter(|(_, p)| !p.is_empty()) else {
        let msg = format!("rcat: {shown}: not a file of a FIFO (NAME:path)\n");
        ctx.stderr.extend_from_slice(msg.as_bytes());
        return Ok(1);
    };
    let body = ctx.io.stdin.read_all().await?;
    ctx.io.budget.spend_bytes(body.len())?;
    let request = HttpRequest {
        method: "PUT".into(),
        url: fifo_sub_path(path),
        headers: vec![("Content-Length".into(), body.len().to_string())],
        body,
        follow_redirects: false,
    };
    let failure = match ctx.io.net.fifo(name, request).await? {
        Ok(Some(resp)) if (200..300).contains(&resp.status) => return Ok(0),
        Ok(Some(resp)) => format!("{name} answered {}", resp.status),
        Ok(None) => format!("no FIFO named {name}"),
        Err(reason) => reason,
    };
    let msg = format!("rcat: {shown}: {failure}\n");
    ctx.stderr.extend_from_slice(msg.as_bytes());
    Ok(1)
}
