# An S3 ListObjectsV2 answer (as JSON: {Prefix, Contents: [{Key, LastModified, ETag,
# Size}], CommonPrefixes: [{Prefix}]}) to `rclone lsjson` output, run with `jq -r`:
# entries sorted by name, directories and files mixed, Go's escapes for & < >, ModTime
# with 9 fraction digits, MimeType from the extension as rclone guesses it.
{"txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
 "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
 "css": "text/css; charset=utf-8", "csv": "text/csv; charset=utf-8",
 "xml": "text/xml; charset=utf-8", "js": "text/javascript; charset=utf-8",
 "json": "application/json", "pdf": "application/pdf", "zip": "application/zip",
 "gz": "application/gzip", "tar": "application/x-tar", "png": "image/png",
 "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "svg": "image/svg+xml",
 "webp": "image/webp", "mp4": "video/mp4", "mp3": "audio/mpeg", "wasm": "application/wasm"}
  as $types
| def mime: (ascii_downcase | split(".")) as $parts
    | (if ($parts | length) > 1 then $types[$parts[-1]] else null end)
      // "application/octet-stream";
  def modtime: rtrimstr("Z") | split(".") as [$s, $f]
    | "\($s).\((($f // "") + "000000000")[:9])Z";
  def gojson: tojson
    | if contains("&") or contains("<") or contains(">") or contains("\u2028") or contains("\u2029")
      then gsub("&"; "\\u0026") | gsub("<"; "\\u003c") | gsub(">"; "\\u003e")
        | gsub("\u2028"; "\\u2028") | gsub("\u2029"; "\\u2029")
      end;
(.Prefix // "") as $p
| ($p | length) as $n
| [ (.Contents // [])[] | select(.Key != $p) | .Key[$n:] as $name
    | {Path: $name, Name: $name, Size: (.Size | tonumber), MimeType: ($name | mime),
       ModTime: (.LastModified | modtime), IsDir: false} ]
  + [ (.CommonPrefixes // [])[] | .Prefix[$n:] | rtrimstr("/")
    | {Path: ., Name: ., Size: 0, MimeType: "inode/directory",
       ModTime: "2000-01-01T00:00:00.000000000Z", IsDir: true} ]
| sort_by(.Name)
| if length == 0 then "[\n]" else "[\n" + (map(gojson) | join(",\n")) + "\n]" end
