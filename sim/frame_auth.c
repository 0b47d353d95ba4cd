// SPDX-License-Identifier: MIT
/*
 * The tags of the cards' UDP network (frame_auth.h): HMAC-SHA256 through OpenSSL's EVP_MAC.
 * A frame's MAC context is keyed once; each tag re-initialises it with the key it holds (no
 * key schedule per frame).
 */
#include "sim/frame_auth.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdlib.h>
#include <string.h>

#include "quire/status.h"

struct quire_frame_auth {
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
};

static const char link_label[] = "quire link v2";

static EVP_MAC_CTX *keyed(EVP_MAC *mac, const uint8_t *key, size_t key_len)
{
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
			       OSSL_PARAM_construct_end()};
	EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
	if (ctx && EVP_MAC_init(ctx, key, key_len, params) != 1) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

int quire_frame_auth_mac(const uint8_t *key, size_t key_len, const struct iovec *parts, int n,
			 uint8_t mac[QUIRE_FRAME_AUTH_MAC_BYTES])
{
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = m ? keyed(m, key, key_len) : NULL;
	int ok = ctx != NULL;
	for (int i = 0; ok && i < n; i++)
		ok = EVP_MAC_update(ctx, parts[i].iov_base, parts[i].iov_len) == 1;
	size_t out = 0;
	ok = ok && EVP_MAC_final(ctx, mac, &out, QUIRE_FRAME_AUTH_MAC_BYTES) == 1 &&
	     out == QUIRE_FRAME_AUTH_MAC_BYTES;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	return ok ? QUIRE_OK : QUIRE_ERR_NOMEM;
}

int quire_frame_auth_derive(const struct quire_job_key *k, const uint8_t run[QUIRE_JOB_RUN_BYTES],
			    uint8_t link_key[QUIRE_FRAME_AUTH_MAC_BYTES])
{
	struct iovec parts[2] = {{(void *)link_label, sizeof(link_label) - 1},
				 {(void *)run, QUIRE_JOB_RUN_BYTES}};
	return quire_frame_auth_mac(k->bytes, k->len, parts, 2, link_key);
}

int quire_frame_auth_new(const uint8_t link_key[QUIRE_FRAME_AUTH_MAC_BYTES],
			 struct quire_frame_auth **out)
{
	struct quire_frame_auth *a = calloc(1, sizeof(*a));
	if (a && (a->mac = EVP_MAC_fetch(NULL, "HMAC", NULL)))
		a->ctx = keyed(a->mac, link_key, QUIRE_FRAME_AUTH_MAC_BYTES);
	if (!a || !a->ctx) {
		quire_frame_auth_free(a);
		*out = NULL;
		return QUIRE_ERR_NOMEM;
	}
	*out = a;
	return QUIRE_OK;
}

void quire_frame_auth_free(struct quire_frame_auth *a)
{
	if (!a)
		return;
	EVP_MAC_CTX_free(a->ctx);
	EVP_MAC_free(a->mac);
	free(a);
}

/* The whole MAC of head and body: 0 when OpenSSL failed (the tag is then all zero, which
 * the check refuses: a MAC of all zero bytes is not what it compares against). */
static int mac_of(struct quire_frame_auth *a, const uint8_t *head, size_t head_len,
		  const uint8_t *body, size_t body_len, uint8_t mac[QUIRE_FRAME_AUTH_MAC_BYTES])
{
	size_t out = 0;
	/* A NULL key re-initialises with the key the context holds. */
	if (EVP_MAC_init(a->ctx, NULL, 0, NULL) == 1 &&
	    EVP_MAC_update(a->ctx, head, head_len) == 1 &&
	    (!body_len || EVP_MAC_update(a->ctx, body, body_len) == 1) &&
	    EVP_MAC_final(a->ctx, mac, &out, QUIRE_FRAME_AUTH_MAC_BYTES) == 1 &&
	    out == QUIRE_FRAME_AUTH_MAC_BYTES)
		return 1;
	memset(mac, 0, QUIRE_FRAME_AUTH_MAC_BYTES);
	return 0;
}

void quire_frame_auth_tag(struct quire_frame_auth *a, const uint8_t *head, size_t head_len,
			  const uint8_t *body, size_t body_len, uint8_t tag[QUIRE_LINK_TAG_BYTES])
{
	uint8_t mac[QUIRE_FRAME_AUTH_MAC_BYTES];
	(void)mac_of(a, head, head_len, body, body_len, mac);
	memcpy(tag, mac, QUIRE_LINK_TAG_BYTES);
}

int quire_frame_auth_check(struct quire_frame_auth *a, const uint8_t *head, size_t head_len,
			   const uint8_t *body, size_t body_len,
			   const uint8_t tag[QUIRE_LINK_TAG_BYTES])
{
	uint8_t mac[QUIRE_FRAME_AUTH_MAC_BYTES];
	return mac_of(a, head, head_len, body, body_len, mac) &&
	       CRYPTO_memcmp(mac, tag, QUIRE_LINK_TAG_BYTES) == 0;
}
