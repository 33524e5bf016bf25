// OpenSSL's libcrypto, for the SHA-256 digests the mock server reports
// (/upload, multipart parts). The system's copy: no BoringSSL to build.
#ifndef COURIER_CLIBCRYPTO_SHIM_H
#define COURIER_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
