// Inputs that more than one benchmark reads.
import crypto from "node:crypto";

// One page of ListObjectsV2 as S3 answers it: 1,000 keys and a common prefix.
export function listObjectsPage(keys) {
  const contents = Array.from({ length: keys }, (_, i) => {
    const etag = crypto.createHash("md5").update(String(i)).digest("hex");
    const time = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    return `<Contents><Key>photos/2026/${String(i).padStart(5, "0")}-img &amp; co.jpg</Key><LastModified>${time}</LastModified>` +
      `<ETag>&#34;${etag}&#34;</ETag><Size>${1000 + i}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  });
  return Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Name>bkt</Name><Prefix>photos/2026/</Prefix><KeyCount>${keys + 1}</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter>` +
    `<IsTruncated>false</IsTruncated>${contents.join("")}<CommonPrefixes><Prefix>photos/2026/raw/</Prefix></CommonPrefixes></ListBucketResult>`);
}
