/* SPDX-License-Identifier: Apache-2.0 */
/* The link partners' LLDP as the agent hears them (peer_listen.c). */
#ifndef RQ_PLUGIN_PEER_BOOK_H
#define RQ_PLUGIN_PEER_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

#include "plugin/agent/agent.h"

/*
 * peer_listen.c: the link partners' LLDP, one AF_PACKET socket per watched PF
 * in one epoll of its own (peer_book_fd), woken by a frame or a TTL running out.
 */
struct peer_book;
struct lldp_peer;
int peer_book_new(const struct rq_env *env, struct peer_book **ret);
void peer_book_free(struct peer_book *b);
int peer_book_fd(const struct peer_book *b);
/* Listen on exactly these PFs (the last pass's); others are closed and forgotten. */
void peer_book_watch(struct peer_book *b, char (*names)[IF_NAMESIZE], size_t n);
/* Read what is waiting; @who gets each PF whose partner changed, came or went. */
size_t peer_book_ready(struct peer_book *b, char who[][48], size_t max);
/*
 * @pf's one current partner: NULL when none is heard or more than one is (then
 * nothing is judged); *ret_listening: a socket is open on it.
 */
const struct lldp_peer *peer_book_get(const struct peer_book *b, const char *pf,
				      bool *ret_listening);
/* @pf's current neighbours (MSAPs), and the @k-th of them (NULL past the last) */
size_t peer_book_count(const struct peer_book *b, const char *pf);
const struct lldp_peer *peer_book_nth(const struct peer_book *b, const char *pf, size_t k);

#endif
