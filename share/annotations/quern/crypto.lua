---@meta _
-- quern.crypto: digests, HMAC, PBKDF2, random bytes, UUIDs (docs/scenarios.md,
-- "Crypto: quern.crypto").

---How bytes come out: `"hex"` (lower case), `"base64"` (padded), `"base64url"`
---(`-_`, padded), `"base64rawurl"` (without `=`, as JWTs write it) or `"binary"`.
---@alias quern.crypto.Encoding "hex"|"base64"|"base64url"|"base64rawurl"|"binary"

---@alias quern.crypto.Algorithm "md5"|"sha1"|"sha256"|"sha384"|"sha512"

---@class quern.crypto
local crypto = {}

---The MD5 digest of the bytes `s`; `enc` defaults to `"hex"`.
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.md5(s, enc) end

---The SHA-1 digest of the bytes `s`; `enc` defaults to `"hex"`.
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.sha1(s, enc) end

---The SHA-256 digest of the bytes `s`; `enc` defaults to `"hex"`.
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.sha256(s, enc) end

---The SHA-384 digest of the bytes `s`; `enc` defaults to `"hex"`.
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.sha384(s, enc) end

---The SHA-512 digest of the bytes `s`; `enc` defaults to `"hex"`.
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.sha512(s, enc) end

---The HMAC of `s` under `key` (RFC 2104); `enc` defaults to `"hex"`.
---@param alg quern.crypto.Algorithm
---@param key string
---@param s string
---@param enc? quern.crypto.Encoding
---@return string
function crypto.hmac(alg, key, s, enc) end

---PBKDF2 with HMAC-`alg` (RFC 8018): `len` bytes (1 to 1,024) derived from
---`password` and `salt` in `iterations` rounds (1 to 1,000,000; the work runs
---on the worker's loop, one or two milliseconds per 4,096 rounds); `enc` defaults
---to `"hex"`.
---@param alg quern.crypto.Algorithm
---@param password string
---@param salt string
---@param iterations integer
---@param len integer
---@param enc? quern.crypto.Encoding
---@return string
function crypto.pbkdf2(alg, password, salt, iterations, len, enc) end

---`n` bytes (0 to 65,536) from OpenSSL's CSPRNG; `enc` defaults to `"binary"`.
---@param n integer
---@param enc? quern.crypto.Encoding
---@return string
function crypto.random_bytes(n, enc) end

---A random UUID, version 4, lower case (`"1b4e28ba-2fa1-4d2a-883f-0016d3cca427"`).
---@return string
function crypto.uuid() end
