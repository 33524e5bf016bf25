// OpenSSL's libcrypto, for CourierCore's digests on Linux (SHA-256 for
// request keys, MD5 for HTTP Digest authentication) and CourierFleet's
// sealed credentials (AES-256-GCM, random nonces): the EVP interface,
// which OpenSSL 3 keeps undeprecated. Debian's libssl-dev provides it; the
// libcurl CourierCurl links is built on the same OpenSSL.
#ifndef COURIER_CCRYPTO_SHIM_H
#define COURIER_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/rand.h>

#endif
