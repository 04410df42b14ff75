// SPDX-License-Identifier: Apache-2.0
/*
 * gRPC over HTTP/2 on kubelet's unix socket, by nghttp2, non-blocking under
 * one deadline for the whole exchange: a kubelet that hangs, resets or
 * answers garbage costs at most the bound and yields an error, never a hang.
 */
#include "pkg/podres/podres.h"

#include <errno.h>
#include <fcntl.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pkg/podres/api.pb-c.h"

struct call {
	/* request */
	uint8_t *req;
	size_t req_len, req_off;
	/* reply */
	uint8_t *body;
	size_t len, cap;
	int http_status;
	int grpc_status;    /* -1 until seen */
	char grpc_msg[384]; /* decoded: "pod NAME in namespace NS not found" at any name */
	bool closed;
	uint32_t close_code;
	int err; /* a local refusal (-EFBIG, -ENOMEM) */
};

struct conn {
	int fd;
	nghttp2_session *s;
	struct call *call;
	int64_t deadline_ms;
	bool eof;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *ud)
{
	struct conn *c = ud;
	ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return NGHTTP2_ERR_WOULDBLOCK;
	if (n < 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	return n;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
		     const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	struct conn *c = ud;
	char v[16];

	if (!c->call || f->hd.stream_id <= 0)
		return 0;
	if (nlen == 7 && !memcmp(name, ":status", 7)) {
		(void)snprintf(v, sizeof(v), "%.*s", (int)(vlen < 15 ? vlen : 15), value);
		c->call->http_status = atoi(v);
	} else if (nlen == 11 && !memcmp(name, "grpc-status", 11)) {
		(void)snprintf(v, sizeof(v), "%.*s", (int)(vlen < 15 ? vlen : 15), value);
		c->call->grpc_status =
		    (vlen && vlen < 4 && strspn(v, "0123456789") == vlen) ? atoi(v) : 2;
	} else if (nlen == 12 && !memcmp(name, "grpc-message", 12)) {
		/* percent-encoded on the wire; decoded here, made printable only for the log */
		(void)podres_grpc_msg_decode(value, vlen, c->call->grpc_msg,
					     sizeof(c->call->grpc_msg));
	}
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data,
		   size_t len, void *ud)
{
	struct conn *c = ud;
	struct call *k = c->call;

	if (!k || k->err)
		return 0;
	if (len > RQ_PODRES_REPLY_MAX - k->len) {
		k->err = -EFBIG;
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	if (k->len + len > k->cap) {
		size_t cap = k->cap ? k->cap : 4096;
		uint8_t *p;

		while (cap < k->len + len)
			cap *= 2;
		if (cap > RQ_PODRES_REPLY_MAX)
			cap = RQ_PODRES_REPLY_MAX;
		p = realloc(k->body, cap);
		if (!p) {
			k->err = -ENOMEM;
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
		k->body = p;
		k->cap = cap;
	}
	memcpy(k->body + k->len, data, len);
	k->len += len;
	return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code, void *ud)
{
	struct conn *c = ud;

	if (c->call) {
		c->call->closed = true;
		c->call->close_code = code;
	}
	return 0;
}

static ssize_t req_read(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len,
			uint32_t *flags, nghttp2_data_source *src, void *ud)
{
	struct call *k = src->ptr;
	size_t n = k->req_len - k->req_off;

	if (n > len)
		n = len;
	memcpy(buf, k->req + k->req_off, n);
	k->req_off += n;
	if (k->req_off == k->req_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* connect(2) by the socket's directory fd: the path resolves under the root, at any length. */
static int conn_open_fd(const struct rq_root *r, const char *kubelet_dir, int64_t deadline,
			struct conn *c)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dir[512];
	struct pollfd p;
	socklen_t sl = sizeof(int);
	int dfd, err = 0;

	(void)snprintf(dir, sizeof(dir), "%s/pod-resources", kubelet_dir);
	dfd = root_openat(r, dir, O_PATH | O_DIRECTORY, 0);
	if (dfd < 0)
		return -ENOTCONN;
	(void)snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/kubelet.sock", dfd);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		err = -errno;
		close(dfd);
		return err;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = errno;
		if (err == EINPROGRESS || err == EAGAIN) {
			p = (struct pollfd){.fd = c->fd, .events = POLLOUT};
			int64_t left = deadline - now_ms();

			err = poll(&p, 1, left > 0 ? (int)left : 0) == 1 &&
				      getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0
				  ? err
				  : ETIMEDOUT;
		}
	}
	close(dfd);
	if (err) {
		close(c->fd);
		c->fd = -1;
		return err == ETIMEDOUT ? -ETIMEDOUT : -ENOTCONN;
	}
	return 0;
}

/* conn_open_fd, and why not in ST's detail. */
static int conn_open(const struct rq_root *r, const char *kubelet_dir, int64_t deadline,
		     struct conn *c, struct rq_podres_status *st)
{
	int rr = conn_open_fd(r, kubelet_dir, deadline, c);

	if (rr < 0)
		(void)snprintf(st->detail, sizeof(st->detail), "%s",
			       rr == -ETIMEDOUT ? "no answer within the bound"
						: "no socket or nobody on it");
	return rr;
}

/* Run the session until the call's stream closes, the peer goes, or the deadline passes. */
static int conn_pump(struct conn *c)
{
	uint8_t buf[16384];

	while (!c->call->closed) {
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int64_t left = c->deadline_ms - now_ms();
		ssize_t n;
		int rr;

		if (nghttp2_session_send(c->s) != 0)
			return c->call->err ? c->call->err : -EPROTO;
		if (c->call->closed)
			break;
		if (c->eof ||
		    (!nghttp2_session_want_read(c->s) && !nghttp2_session_want_write(c->s)))
			return -EPROTO; /* the peer went away before the answer was whole */
		if (left <= 0)
			return -ETIMEDOUT;
		if (nghttp2_session_want_write(c->s))
			p.events |= POLLOUT;
		rr = poll(&p, 1, (int)left);
		if (rr < 0 && errno == EINTR)
			continue;
		if (rr < 0)
			return -errno;
		if (rr == 0)
			return -ETIMEDOUT;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			c->eof = true;
			continue;
		}
		if (nghttp2_session_mem_recv(c->s, buf, (size_t)n) < 0)
			return c->call->err ? c->call->err : -EPROTO;
	}
	return c->call->err;
}

static int conn_start(struct conn *c)
{
	nghttp2_settings_entry iv = {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE,
				     (uint32_t)RQ_PODRES_REPLY_MAX};
	nghttp2_session_callbacks *cb;
	int r;

	if (nghttp2_session_callbacks_new(&cb) != 0)
		return -ENOMEM;
	nghttp2_session_callbacks_set_send_callback(cb, on_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
	r = nghttp2_session_client_new(&c->s, cb, c);
	nghttp2_session_callbacks_del(cb);
	if (r != 0)
		return -ENOMEM;
	/*
	 * Windows as large as the reply we accept: List on a 250-pod node is ~230 KB, and at
	 * HTTP/2's default 64 KiB the server waits a round trip for each WINDOW_UPDATE.
	 */
	if (nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, &iv, 1) != 0 ||
	    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0,
						  (int32_t)RQ_PODRES_REPLY_MAX) != 0)
		return -EPROTO;
	return 0;
}

/* "gRPC status N: message", bytes outside printable ASCII as '?': it goes into a log. */
static void grpc_detail(const struct call *k, struct rq_podres_status *st)
{
	int n = snprintf(st->detail, sizeof(st->detail), "gRPC status %d%s", k->grpc_status,
			 k->grpc_msg[0] ? ": " : "");
	size_t o = n > 0 ? (size_t)n : 0;

	for (size_t i = 0; k->grpc_msg[i] && o + 1 < sizeof(st->detail); i++) {
		unsigned char b = (unsigned char)k->grpc_msg[i];

		st->detail[o++] = (char)((b >= 0x20 && b < 0x7f) ? b : (unsigned char)'?');
	}
	if (o < sizeof(st->detail))
		st->detail[o] = '\0';
}

#define HDR(n, v)                                                                                  \
	{                                                                                          \
		(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1,                      \
		    NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE                   \
	}

/* One unary call: @msg (protobuf) to @path; the reply's body in @k. */
static int conn_call(struct conn *c, const char *path, const uint8_t *msg, size_t mlen,
		     struct call *k, struct rq_podres_status *st)
{
	nghttp2_nv hdrs[] = {
	    HDR(":method", "POST"),
	    HDR(":scheme", "http"),
	    {(uint8_t *)":path", (uint8_t *)path, 5, strlen(path), NGHTTP2_NV_FLAG_NO_COPY_NAME},
	    HDR(":authority", "localhost"),
	    HDR("content-type", "application/grpc"),
	    HDR("te", "trailers"),
	};
	nghttp2_data_provider dp = {.source.ptr = k, .read_callback = req_read};
	int32_t id;
	int r;

	memset(k, 0, sizeof(*k));
	k->grpc_status = -1;
	k->req_len = 5 + mlen;
	k->req = malloc(k->req_len);
	if (!k->req)
		return -ENOMEM;
	k->req[0] = 0;
	k->req[1] = (uint8_t)(mlen >> 24);
	k->req[2] = (uint8_t)(mlen >> 16);
	k->req[3] = (uint8_t)(mlen >> 8);
	k->req[4] = (uint8_t)mlen;
	if (mlen)
		memcpy(k->req + 5, msg, mlen);
	c->call = k;
	id = nghttp2_submit_request(c->s, NULL, hdrs, sizeof(hdrs) / sizeof(hdrs[0]), &dp, NULL);
	r = id < 0 ? -EPROTO : conn_pump(c);
	free(k->req);
	k->req = NULL;
	st->grpc_status = k->grpc_status;
	if (r == -ETIMEDOUT)
		(void)snprintf(st->detail, sizeof(st->detail), "no answer within the bound");
	else if (r == -EFBIG)
		(void)snprintf(st->detail, sizeof(st->detail), "reply over the bound");
	else if (r == -EPROTO)
		(void)snprintf(st->detail, sizeof(st->detail),
			       "connection closed, reset or not speaking HTTP/2");
	else if (r < 0)
		(void)snprintf(st->detail, sizeof(st->detail), "connection failed: %s",
			       strerror(-r));
	else if (k->close_code != 0)
		(void)snprintf(st->detail, sizeof(st->detail), "stream reset (HTTP/2 error %u)",
			       k->close_code),
		    r = -EPROTO;
	else if (k->http_status != 200)
		(void)snprintf(st->detail, sizeof(st->detail), "HTTP status %d", k->http_status),
		    r = -EPROTO;
	else if (k->grpc_status != 0)
		grpc_detail(k, st), r = -EPROTO;
	return r;
}

static void call_fini(struct call *k)
{
	free(k->req);
	free(k->body);
	memset(k, 0, sizeof(*k));
}

int podres_get_pod(const struct rq_root *r, const char *kubelet_dir, const char *ns,
		   const char *name, const char *const *skip, int timeout_ms,
		   struct rq_podres_placement *ret, struct rq_podres_status *st)
{
	V1__GetPodResourcesRequest get = V1__GET_POD_RESOURCES_REQUEST__INIT;
	struct conn c = {.fd = -1, .deadline_ms = now_ms() + timeout_ms};
	struct call k = {0};
	enum rq_podres_get_answer ans;
	uint8_t *msg = NULL;
	size_t mlen;
	int rr;

	memset(st, 0, sizeof(*st));
	st->grpc_status = -1;
	if (!ns || !ns[0] || !name || !name[0]) {
		(void)snprintf(st->detail, sizeof(st->detail), "no K8S_POD_NAMESPACE/K8S_POD_NAME");
		return -EINVAL;
	}
	rr = conn_open(r, kubelet_dir, c.deadline_ms, &c, st);
	if (rr < 0)
		return rr;
	rr = conn_start(&c);
	if (rr == 0) {
		get.pod_name = (char *)name;
		get.pod_namespace = (char *)ns;
		mlen = v1__get_pod_resources_request__get_packed_size(&get);
		msg = malloc(mlen ? mlen : 1);
		rr = msg ? 0 : -ENOMEM;
	}
	if (rr == 0) {
		v1__get_pod_resources_request__pack(&get, msg);
		rr = conn_call(&c, "/v1.PodResourcesLister/Get", msg, mlen, &k, st);
	}
	ans = rr == -EPROTO ? podres_get_answer(k.grpc_status, k.grpc_msg, ns, name)
			    : RQ_PODRES_GET_FAILED;
	if (ans == RQ_PODRES_GET_NO_POD) {
		rr = -ESRCH;
	} else if (ans == RQ_PODRES_GET_NO_METHOD) {
		/*
		 * kubelet 1.26 (no Get: UNIMPLEMENTED) or 1.27-1.33 with KubeletPodResourcesGet
		 * off, its default ("Get method disabled"): List, a second stream on this
		 * connection. Most clusters answer here.
		 */
		call_fini(&k);
		st->used_list = true;
		st->detail[0] = '\0';
		rr = conn_call(&c, "/v1.PodResourcesLister/List", NULL, 0, &k, st);
		if (rr == 0)
			rr = podres_decode_list(k.body, k.len, ns, name, skip, ret);
	} else if (rr == 0) {
		rr = podres_decode_get(k.body, k.len, skip, ret);
	}
	if (rr == -EBADMSG)
		(void)snprintf(st->detail, sizeof(st->detail), "reply is not a %s response",
			       st->used_list ? "List" : "Get");
	else if (rr == -ESRCH)
		(void)snprintf(st->detail, sizeof(st->detail), "kubelet knows no pod %s/%s", ns,
			       name);
	free(msg);
	call_fini(&k);
	if (c.s)
		nghttp2_session_del(c.s);
	close(c.fd);
	return rr;
}

int podres_list(const struct rq_root *r, const char *kubelet_dir, int timeout_ms,
		uint8_t **ret_body, size_t *ret_len, struct rq_podres_status *st)
{
	struct conn c = {.fd = -1, .deadline_ms = now_ms() + timeout_ms};
	struct call k = {0};
	int rr;

	memset(st, 0, sizeof(*st));
	st->grpc_status = -1;
	st->used_list = true;
	*ret_body = NULL;
	*ret_len = 0;
	rr = conn_open(r, kubelet_dir, c.deadline_ms, &c, st);
	if (rr < 0)
		return rr;
	rr = conn_start(&c);
	if (rr == 0)
		rr = conn_call(&c, "/v1.PodResourcesLister/List", NULL, 0, &k, st);
	if (rr == 0 && !k.body) /* an empty List: the frame alone */
		rr = (k.body = calloc(1, 5)) ? 0 : -ENOMEM;
	if (rr == 0) {
		*ret_body = k.body;
		*ret_len = k.len;
		k.body = NULL;
	}
	call_fini(&k);
	if (c.s)
		nghttp2_session_del(c.s);
	close(c.fd);
	return rr;
}

int podres_list_find_vf(const struct rq_root *r, const char *kubelet_dir, const char *pci,
			const char *netdev, int timeout_ms, struct rq_podres_vf_owner *ret,
			struct rq_podres_status *st)
{
	uint8_t *body;
	size_t len;
	int rr;

	memset(ret, 0, sizeof(*ret));
	rr = podres_list(r, kubelet_dir, timeout_ms, &body, &len, st);
	if (rr < 0)
		return rr;
	rr = podres_find_vf(body, len, pci, netdev, ret);
	if (rr == -EBADMSG)
		(void)snprintf(st->detail, sizeof(st->detail), "reply is not a List response");
	else if (rr == -ESRCH)
		(void)snprintf(st->detail, sizeof(st->detail), "no pod names VF %s", pci);
	else if (rr == -ENOTUNIQ)
		(void)snprintf(st->detail, sizeof(st->detail), "more than one pod names VF %s",
			       pci);
	free(body);
	return rr;
}
