// SPDX-License-Identifier: MIT
/*
 * The proofs of the job key in the cards' UDP rendezvous (wire_udp_rendezvous.h): the MACs of
 * an ANNOUNCE, over the rendezvous' challenge, and of a TABLE, over both sides' nonces, so
 * that each side shows the other it holds the key without sending it, and neither proof can
 * be replayed on another connection.
 */
#include <stdint.h>
#include <sys/uio.h>

#include "quire/status.h"
#include "sim/frame_auth.h"
#include "sim/wire_udp_rendezvous.h"

static const char announce_label[] = "quire rdv announce v2";
static const char table_label[] = "quire rdv table v2";
static const uint8_t no_nonce[QUIRE_WIRE_UDP_RDV_NONCE_BYTES];

int quire_wire_udp_rdv_announce_mac(const struct quire_job_key *key, const uint8_t *challenge,
				    const uint8_t *m, uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES])
{
	struct iovec parts[3] = {
	    {(void *)announce_label, sizeof(announce_label) - 1},
	    {(void *)(challenge ? challenge : no_nonce), QUIRE_WIRE_UDP_RDV_NONCE_BYTES},
	    {(void *)m, QUIRE_WIRE_UDP_RDV_HDR_BYTES + QUIRE_WIRE_UDP_RDV_ANN_OFF_MAC}};
	return quire_frame_auth_mac(key->bytes, key->len, parts, 3, mac);
}

int quire_wire_udp_rdv_table_mac(const struct quire_job_key *key, const uint8_t *card_nonce,
				 const uint8_t *challenge, const uint8_t *m, uint32_t len,
				 uint8_t mac[QUIRE_WIRE_UDP_RDV_MAC_BYTES])
{
	struct iovec parts[4] = {{(void *)table_label, sizeof(table_label) - 1},
				 {(void *)card_nonce, QUIRE_WIRE_UDP_RDV_NONCE_BYTES},
				 {(void *)challenge, QUIRE_WIRE_UDP_RDV_NONCE_BYTES},
				 {(void *)m, len - QUIRE_WIRE_UDP_RDV_MAC_BYTES}};
	return quire_frame_auth_mac(key->bytes, key->len, parts, 4, mac);
}
