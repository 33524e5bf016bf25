// OpenSSL's libcrypto, for the SHA-256 digests the mock server reports
// (/upload, multipart parts) and the certificate `--tls` makes at start. The
// system's copy: no BoringSSL or X.509 library to build.
#ifndef COURIER_CLIBCRYPTO_SHIM_H
#define COURIER_CLIBCRYPTO_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

/// The PEM text `write` puts in a memory BIO, as a NUL-terminated string
/// the caller frees; NULL on failure.
static inline char *courier_mock_pem(int (*write)(BIO *, void *), void *object) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return NULL;
    char *text = NULL;
    if (write(bio, object) == 1) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        text = length > 0 ? malloc((size_t)length + 1) : NULL;
        if (text) {
            memcpy(text, data, (size_t)length);
            text[length] = 0;
        }
    }
    BIO_free(bio);
    return text;
}

static inline int courier_mock_write_certificate(BIO *bio, void *certificate) {
    return PEM_write_bio_X509(bio, (X509 *)certificate);
}

static inline int courier_mock_write_key(BIO *bio, void *key) {
    return PEM_write_bio_PrivateKey(bio, (EVP_PKEY *)key, NULL, NULL, 0, NULL, NULL);
}

/// Adds the extension `value` (OpenSSL's configuration syntax) to `certificate`,
/// issued by `issuer`.
static inline int courier_mock_extend(X509 *certificate, X509 *issuer, int nid, const char *value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, certificate, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &context, nid, value);
    if (!extension) return 0;
    int added = X509_add_ext(certificate, extension, -1);
    X509_EXTENSION_free(extension);
    return added;
}

/// A certificate for `key` named `commonName`, valid from an hour ago for a
/// day, with a random 128-bit serial; issuer and signature come later.
static inline X509 *courier_mock_certificate(EVP_PKEY *key, const char *commonName) {
    X509 *certificate = X509_new();
    BIGNUM *serial = BN_new();
    int ok = certificate && serial && X509_set_version(certificate, 2)
        && BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)
        && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate))
        && X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        && X509_gmtime_adj(X509_getm_notAfter(certificate), 86400)
        && X509_set_pubkey(certificate, key)
        && X509_NAME_add_entry_by_txt(X509_get_subject_name(certificate), "CN", MBSTRING_ASC,
                                      (const unsigned char *)commonName, -1, -1, 0);
    BN_free(serial);
    if (!ok) {
        X509_free(certificate);
        return NULL;
    }
    return certificate;
}

/// Makes a private CA (P-256) and a server certificate it signs for
/// `alternativeNames` (OpenSSL's subjectAltName syntax: `IP:127.0.0.1,DNS:localhost`).
/// On success returns 1 and sets the three PEM strings, which the caller frees.
static inline int courier_mock_make_tls(const char *alternativeNames, char **authorityPEM,
                                        char **certificatePEM, char **keyPEM) {
    *authorityPEM = *certificatePEM = *keyPEM = NULL;
    EVP_PKEY *authorityKey = EVP_EC_gen("P-256");
    EVP_PKEY *serverKey = EVP_EC_gen("P-256");
    X509 *authority = authorityKey ? courier_mock_certificate(authorityKey, "courier-mock CA") : NULL;
    X509 *server = serverKey ? courier_mock_certificate(serverKey, "courier-mock") : NULL;
    int ok = authority && server
        && X509_set_issuer_name(authority, X509_get_subject_name(authority))
        && courier_mock_extend(authority, authority, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
        && courier_mock_extend(authority, authority, NID_key_usage, "critical,keyCertSign,cRLSign")
        && courier_mock_extend(authority, authority, NID_subject_key_identifier, "hash")
        && X509_sign(authority, authorityKey, EVP_sha256()) > 0
        && X509_set_issuer_name(server, X509_get_subject_name(authority))
        && courier_mock_extend(server, authority, NID_basic_constraints, "critical,CA:FALSE")
        && courier_mock_extend(server, authority, NID_key_usage, "critical,digitalSignature")
        && courier_mock_extend(server, authority, NID_ext_key_usage, "serverAuth")
        && courier_mock_extend(server, authority, NID_subject_alt_name, alternativeNames)
        && courier_mock_extend(server, authority, NID_authority_key_identifier, "keyid")
        && X509_sign(server, authorityKey, EVP_sha256()) > 0;
    if (ok) {
        *authorityPEM = courier_mock_pem(courier_mock_write_certificate, authority);
        *certificatePEM = courier_mock_pem(courier_mock_write_certificate, server);
        *keyPEM = courier_mock_pem(courier_mock_write_key, serverKey);
        ok = *authorityPEM && *certificatePEM && *keyPEM;
    }
    X509_free(authority);
    X509_free(server);
    EVP_PKEY_free(authorityKey);
    EVP_PKEY_free(serverKey);
    if (!ok) {
        free(*authorityPEM);
        free(*certificatePEM);
        free(*keyPEM);
        *authorityPEM = *certificatePEM = *keyPEM = NULL;
    }
    return ok;
}
#endif
