// How much the public API's intake routes (POST /ingestion, POST /otel/v1/traces) take. Langfuse's own OTel route
// reads bodies without a limit, and its SDKs put no byte cap on an export (one trace of large spans is megabytes), so
// these are sized for what an SDK sends while still bounding what one request may cost (docs/decisions.md "Intake
// size limits").

/** Bytes as sent, compressed or not: 64 MiB. */
export const INTAKE_BODY_LIMIT = 64 * 1024 * 1024;
/** Bytes once gzip is undone, at most: 64 MiB, so compression never lets more in than a plain body. */
export const DECOMPRESSED_CEILING = INTAKE_BODY_LIMIT;
/** Any body may inflate to this much (4.5 MB, the former plain limit), whatever its ratio. */
export const DECOMPRESSED_FLOOR = 4_718_592;
/** Past the floor, a body may inflate to at most this many times its size: text and protobuf compress well under it,
 * gzip bombs (up to 1,032:1) far over it. */
export const MAX_COMPRESSION_RATIO = 200;

/** The bytes a gzipped body of `sentBytes` may inflate to. */
export function decompressedLimit(sentBytes: number): number {
  return Math.min(DECOMPRESSED_CEILING, Math.max(DECOMPRESSED_FLOOR, sentBytes * MAX_COMPRESSION_RATIO));
}
