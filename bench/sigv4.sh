# AWS Signature Version 4 of one S3 request, computed with builtins: the Authorization
# header for METHOD PATH?QUERY on HOST, the payload being stdin. The S3 backend envelope
# signs its requests this way; the benchmark times it.
# Variables: AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION METHOD HOST URI_PATH QUERY AMZ_DATE
service=s3
day=$(printf '%s' "$AMZ_DATE" | cut -c1-8)
payload_hash=$(sha256sum | cut -d' ' -f1)
signed_headers='host;x-amz-content-sha256;x-amz-date'
canonical_headers=$(printf 'host:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n' "$HOST" "$payload_hash" "$AMZ_DATE")
canonical_request=$(printf '%s\n%s\n%s\n%s\n\n%s\n%s' "$METHOD" "$URI_PATH" "$QUERY" "$canonical_headers" "$signed_headers" "$payload_hash")
request_hash=$(printf '%s' "$canonical_request" | sha256sum | cut -d' ' -f1)
scope="$day/$AWS_REGION/$service/aws4_request"
string_to_sign=$(printf 'AWS4-HMAC-SHA256\n%s\n%s\n%s' "$AMZ_DATE" "$scope" "$request_hash")
k_date=$(printf '%s' "$day" | hmac -k "AWS4$AWS_SECRET_ACCESS_KEY" | cut -d' ' -f1)
k_region=$(printf '%s' "$AWS_REGION" | hmac -K "$k_date" | cut -d' ' -f1)
k_service=$(printf '%s' "$service" | hmac -K "$k_region" | cut -d' ' -f1)
k_signing=$(printf 'aws4_request' | hmac -K "$k_service" | cut -d' ' -f1)
signature=$(printf '%s' "$string_to_sign" | hmac -K "$k_signing" | cut -d' ' -f1)
printf 'AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s\n' "$AWS_ACCESS_KEY_ID" "$scope" "$signed_headers" "$signature"
