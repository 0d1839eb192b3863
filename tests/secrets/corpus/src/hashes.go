package hashes

// Known-good digests and ids (not secrets).
var known = map[string]string{
	"go.sum":   "h1:wLxuK2XZHpA2dT2E1l44+zE17ffNMzsBVmSVpyDNBio=",
	"commit":   "c9f3770a05cb25bc3db1bfe5424f1ba7075e2b98",
	"short":    "1d985cc",
	"md5":      "b251177cfd5e718ac3139c0c70840d1b",
	"sha256":   "a488c9dde7e2630736f5dafe40eea792ab465d0710ef63297acdab322b672e79",
	"uuid":     "2a7c8af9-35f5-4f37-e4df-6ec82bb2b036",
}

const secretToken = "69a74fd45afd45fcc64f3084c8a99fff81d0145d" // a hex digest used as a cache key
const apiKeyHeader = "X-Api-Key"
const tokenKind = "refresh_token"
const passwordField = "password_confirmation"
var accessKey = cfg.AccessKey
