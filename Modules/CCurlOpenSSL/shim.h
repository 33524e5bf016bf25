// CourierCurl's certificate pinning over OpenSSL, the TLS library of
// Debian's libcurl (libcurl4-openssl-dev): libcurl hands each new
// connection's SSL_CTX to CURLOPT_SSL_CTX_FUNCTION, where a verification
// callback is installed that runs OpenSSL's own verification first and then
// asks Swift whether a key of the verified chain is pinned. libcurl's
// CURLOPT_PINNEDPUBLICKEY checks the leaf's key only and cannot say which
// keys the chain had; this checks every certificate and can.
#ifndef COURIER_CCURLOPENSSL_SHIM_H
#define COURIER_CCURLOPENSSL_SHIM_H

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

/// The most certificates of a chain whose keys are hashed (leaf first).
#define COURIER_PIN_CHAIN_MAX 10

/// Implemented in Swift (CourierCurl's CurlPinning.swift): whether the
/// chain's keys meet the pins of the transfer `context` is. `hashes` holds
/// `count` SHA-256 digests of SubjectPublicKeyInfo, 32 bytes each, leaf first.
extern int courier_curl_chain_is_pinned(void *context, const unsigned char *hashes, long count);

/// OpenSSL's verification, then the pins: a chain OpenSSL refuses is refused
/// as it would be without pins; one it accepts must also meet the pins.
static inline int courier_curl_verify_chain(X509_STORE_CTX *store, void *context) {
    int verified = X509_verify_cert(store);
    if (verified <= 0) return verified;
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(store);
    int certificates = chain ? sk_X509_num(chain) : 0;
    unsigned char hashes[32 * COURIER_PIN_CHAIN_MAX];
    long count = 0;
    for (int index = 0; index < certificates && count < COURIER_PIN_CHAIN_MAX; index++) {
        X509_PUBKEY *key = X509_get_X509_PUBKEY(sk_X509_value(chain, index));
        unsigned char *der = NULL;
        int length = key ? i2d_X509_PUBKEY(key, &der) : 0;  // allocates `der`
        if (length <= 0) continue;
        unsigned int size = 0;
        int done = EVP_Digest(der, (size_t)length, hashes + 32 * count, &size, EVP_sha256(), NULL);
        OPENSSL_free(der);
        if (done == 1 && size == 32) count++;
    }
    if (courier_curl_chain_is_pinned(context, hashes, count)) return 1;
    X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return 0;
}

/// CURLOPT_SSL_CTX_FUNCTION: installs the check on a new connection's context.
static inline CURLcode courier_curl_ssl_context(CURL *handle, void *ssl_context, void *context) {
    (void)handle;
    SSL_CTX_set_cert_verify_callback((SSL_CTX *)ssl_context, courier_curl_verify_chain, context);
    return CURLE_OK;
}

/// Makes every new connection of `handle` check pins; the transfer it
/// serves passes itself as CURLOPT_SSL_CTX_DATA. Fails (CURLE_NOT_BUILT_IN)
/// when libcurl's TLS library is not OpenSSL.
static inline CURLcode courier_easy_check_pins(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, courier_curl_ssl_context);
}

#endif
