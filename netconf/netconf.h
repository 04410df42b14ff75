/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plugin's entry in a conflist, the node catalog, and profile resolution
 * (DESIGN.md "Network configuration" and "Profiles"). No I/O: the caller
 * reads the bytes.
 */
#ifndef RQ_NETCONF_H
#define RQ_NETCONF_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "netconf/profile.h"
#include "netconf/wiring.h"
#include "pkg/cni/error.h"
#include "pkg/log/log.h"
#include "pkg/numa/numa.h"
#include "pkg/pci/pci.h"

enum rq_pf_mode { RQ_PF_IGNORE = 0, RQ_PF_VERIFY = 1, RQ_PF_ENSURE = 2 };
enum rq_numa_mode { RQ_NUMA_OFF = 0, RQ_NUMA_WARN = 1, RQ_NUMA_STRICT = 2 };
/* NAD gdr: the GPUDirect RDMA verdict (DESIGN.md "GPUDirect RDMA"), default warn */
enum rq_gdr_mode { RQ_GDR_OFF = 0, RQ_GDR_WARN = 1, RQ_GDR_STRICT = 2 };
/* catalog node.gdrTopology: auto (unknown under a hypervisor), sysfs, off */
enum rq_gdr_topology { RQ_GDR_TOPO_AUTO = 0, RQ_GDR_TOPO_SYSFS, RQ_GDR_TOPO_OFF };
/* node.unchained: what the agent does with a VF no chain ran rdma-qos for (default report) */
enum rq_unchained_mode { RQ_UNCHAINED_REPORT = 0, RQ_UNCHAINED_ADOPT, RQ_UNCHAINED_IGNORE };

#define RQ_PCI_ADDR_MAX 16 /* "dddd:bb:dd.f" + NUL */
#define RQ_LOG_DIR	"/var/log/rdma-qos"

struct rq_netconf {
	cJSON *root;		 /* owned; everything below borrows from it */
	const char *cni_version; /* required */
	const char *name;	 /* required */
	const char *type;
	const char *profile;	  /* NULL: none named */
	const char *args_profile; /* Multus per-pod args.cni.profile; wins over profile */
	const cJSON *qos;	  /* inline profile object or NULL */
	bool pf_set;
	enum rq_pf_mode pf;		 /* default RQ_PF_ENSURE */
	enum rq_numa_mode numa;		 /* default RQ_NUMA_WARN */
	enum rq_gdr_mode gdr;		 /* default RQ_GDR_WARN */
	int gdr_level;			 /* enum rq_pci_level; -1: node.gdrLevel */
	char device_id[RQ_PCI_ADDR_MAX]; /* "" if none; runtimeConfig.deviceID wins over deviceID */
	enum rq_log_level log_level;	 /* default info */
	const char *log_file;		 /* NULL or a bare file name inside RQ_LOG_DIR */
	const cJSON *prev_result;	 /* NULL if absent */
	const cJSON *valid_attachments;	 /* GC: cni.dev/valid-attachments array or NULL */
	/* a sub-function (auxiliary device) deviceID: DEL passes, ADD and CHECK refuse it */
	char device_sf[64];
	/* a shared device plugin's ID ("0", "1": k8s-rdma-shared-dev-plugin): names no device */
	char device_shared[16];
};

/*
 * Parse stdin bytes. Decode errors -> RQ_ERR_DECODE; type/range/enum errors ->
 * RQ_ERR_CONFIG naming the JSON path; duplicate keys rejected. Returns 0 or
 * negative errno with @e set.
 */
int netconf_parse(const char *buf, size_t len, struct rq_netconf **ret, struct rq_error *e);
/*
 * netconf_parse with an error collector (`validate`): every key's error is
 * kept in @keep, the parse failing all the same (@e the first) when one was.
 */
int netconf_parse_keep(const char *buf, size_t len, struct rq_errlist *keep,
		       struct rq_netconf **ret, struct rq_error *e);
void netconf_free(struct rq_netconf *nc);

/*
 * keys.c: whether @key is one rdma-qos reads or the runtime/Multus writes;
 * the known key nearest to a typo, or NULL; the first unknown key of @nc's
 * object as an RQ_ERR_CONFIG naming it and its nearest known key (0 if none).
 */
bool netconf_key_known(const char *key);
const char *netconf_key_nearest(const char *key);
int netconf_unknown_key(const struct rq_netconf *nc, struct rq_error *e);
/* The same for the object @root, every unknown key into @keep when given (validate). */
int netconf_unknown_keys(const cJSON *root, struct rq_errlist *keep, struct rq_error *e);
/*
 * Every key of @nc's object ADD ignores (unknown to this version), as the
 * record's `ignoredKeys`: [{"key", "nearest"}] ("nearest" only when there is
 * one). NULL when there is none (or out of memory).
 */
cJSON *netconf_ignored_keys(const struct rq_netconf *nc);

/*
 * A plugin of the conflist's @plugins array other than rdma-qos's (index
 * @ours) that writes the VF's RDMA class too: NVIDIA's rdma-cni with
 * `rdmaQoS` (netconf/chain.c). 1 and the warning in @ret (naming its JSON
 * path), or 0: none.
 */
int netconf_chain_qos_writer(const cJSON *plugins, int ours, char *ret, size_t len);

/* NAD gdr and gdrLevel into @nc (netconf/gdr_keys.c); RQ_ERR_CONFIG naming the key. */
int netconf_gdr_parse(struct rq_netconf *nc, struct rq_error *e);
const char *gdr_mode_name(enum rq_gdr_mode m);
const char *gdr_topology_name(enum rq_gdr_topology t);

/* A profile name: [A-Za-z0-9._-]{1,63}. */
bool netconf_name_valid(const char *s);
/* Validate "dddd:bb:dd.f", lowercase hex. */
bool netconf_pci_addr_valid(const char *s);

/* Whether @v is one of the versions this plugin speaks ("0.3.0".."1.1.0"). */
bool netconf_version_supported(const char *v);
/* strcmp-like semver compare of "a.b.c" */
int netconf_version_cmp(const char *a, const char *b);

struct rq_ns_policy {
	char ns[256];		       /* namespace or "*" */
	char def[RQ_PROFILE_NAME_MAX]; /* default profile, "" = none */
	char (*allow)[RQ_PROFILE_NAME_MAX];
	size_t n_allow;
	bool inline_ok;
};

struct rq_catalog {
	cJSON *root; /* owned; NULL for a partial catalog */
	struct rq_profile *profiles;
	size_t n_profiles;
	/* partial catalog (catalog_parse_for): every profile name, loaded or not */
	char (*names)[RQ_PROFILE_NAME_MAX];
	size_t n_names;
	struct rq_ns_policy *ns;
	size_t n_ns;
	/* node policy: the most a NAD may ask for */
	enum rq_pf_mode pf_max;		    /* default RQ_PF_ENSURE */
	char baseline[RQ_PROFILE_NAME_MAX]; /* node.baseline profile name, "" = none */
	int carrier_wait_s;		    /* node.carrierWaitSeconds */
	char kubelet_dir[256];		    /* node.kubeletDir, default RQ_KUBELET_DIR_DEFAULT */
	enum rq_numa_source numa_source;    /* node.numaSource, default auto */
	enum rq_unchained_mode unchained;   /* node.unchained, default report */
	enum rq_pci_level gdr_level;	    /* node.gdrLevel, default pxb */
	bool gdr_level_set;		    /* node.gdrLevel given (an explicit pxb: p2c is far) */
	enum rq_gdr_topology gdr_topology;  /* node.gdrTopology, default auto */
	struct rq_wiring_rule *wiring;	    /* node.wiring (owned), NULL: no rule */
	size_t n_wiring;
	double fec_uncorr_per_min; /* node.linkHealth.fecUncorrectablePerMinute */
	/* node.sharedResources (owned), NULL: none; netconf/shared_res.c */
	struct rq_shared_res *shared;
	size_t n_shared;
	/*
	 * Observability sections (node.wiring, node.linkHealth) in error: with @obs_lenient set
	 * before parsing (catalog_parse_lenient, catalog_parse_for), the section
	 * is ignored and its error kept in @obs_err instead of failing the parse.
	 */
	bool obs_lenient;
	char obs_err[RQ_ERR_MSG_MAX];
	/* while catalog_parse_keep parses: the collector of every error, else NULL */
	struct rq_errlist *keep;
};

/*
 * node.sharedResources: a device plugin resource whose device IDs name no
 * device (k8s-rdma-shared-dev-plugin's "rdma/hca_shared_devices_a") and the PF
 * netdevs it shares, so the agent can find the host-network pods that hold it
 * (DESIGN.md "Shared RDMA devices"). Agent only: an error in it fails
 * `validate` and catalog sync, and is ignored (obs_err) by ADD and the agent.
 */
#define RQ_SHARED_RES_MAX      64  /* resources */
#define RQ_SHARED_RES_PFS_MAX  8   /* PFs per resource (a RoCE LAG bond's slaves, rails) */
#define RQ_SHARED_RES_NAME_MAX 318 /* DOMAIN (253) "/" NAME (63) + NUL */
struct rq_shared_res {
	char resource[RQ_SHARED_RES_NAME_MAX];
	char pfs[RQ_SHARED_RES_PFS_MAX][16]; /* netdev names (IFNAMSIZ) */
	size_t n_pfs;
};
/* "DOMAIN/NAME" as Kubernetes takes an extended resource name (a device plugin's) */
bool shared_res_name_valid(const char *s);
/* The entry of @resource, or NULL. */
const struct rq_shared_res *catalog_shared_res(const struct rq_catalog *c, const char *resource);

/* How long ADD waits for a PF's carrier after a PFC change (mlx5 toggles the link). */
#define RQ_CARRIER_WAIT_DEFAULT_S 10
#define RQ_KUBELET_DIR_DEFAULT	  "/var/lib/kubelet"
/*
 * Uncorrectable FEC blocks a minute a port may count before the agent calls
 * its link degraded: 802.3's frame loss ratio at 200/400G allows a few an hour.
 */
#define RQ_FEC_UNCORR_PER_MIN_DEFAULT 1.0
#define RQ_FEC_UNCORR_PER_MIN_MAX     1000000.0

/*
 * Parse and validate the node catalog (profiles.json):
 * {"profiles": {name: profile}, "namespaces": {ns: {"default", "allow",
 * "inline"}}, "node": {"pf", "baseline", "carrierWaitSeconds"}}. node.baseline
 * names a profile whose PF requirements always hold on every PF. Every default/allow name must be a
 * catalog profile or the built-in roce-lossless (a catalog entry of that name overrides the
 * built-in); a default must also be in its allow list; namespace keys are DNS labels or "*".
 * Unknown keys are errors.
 */
int catalog_parse(const char *buf, size_t len, struct rq_catalog **ret, struct rq_error *e);
/*
 * catalog_parse with an error collector (`validate`): each error that does not
 * stop the parse (a profile, a key, a namespace entry, a wiring rule) is kept
 * in @keep and the parse carries on with the next; the result is the same
 * (fails when anything was kept, @e the first kept), only every error is in
 * @keep. A JSON decode error still stops it.
 */
int catalog_parse_keep(const char *buf, size_t len, struct rq_errlist *keep,
		       struct rq_catalog **ret, struct rq_error *e);
/*
 * catalog_parse, except that an error inside an observability section
 * (node.wiring, node.linkHealth) ignores that section and is kept in (*ret)->obs_err: what the
 * agent and STATUS use, so that a bad glob never stops a node (issue 49 item
 * 13). `validate` and catalog sync use catalog_parse and still refuse it.
 */
int catalog_parse_lenient(const char *buf, size_t len, struct rq_catalog **ret, struct rq_error *e);

/*
 * The catalog as one ADD or CHECK needs it, at a fraction of the cost of
 * catalog_parse on a big node catalog. The rule (docs/configuration.md "Node catalog"):
 * the whole file must be JSON with only the known top-level keys, and every
 * profile and namespace name is checked; what this attachment uses is
 * validated in full, exactly as catalog_parse does: "node", the entry of
 * @ns (else "*"), the profile @name (the NAD's, may be NULL) and that
 * entry's default. Other entries' contents are not looked at: an error
 * there fails the ADDs that use it, STATUS, and catalog_parse (rdma-qos
 * validate), not the attachments of other namespaces. An error inside
 * node.wiring or node.linkHealth is not ADD's: the section is ignored, (*ret)->obs_err says why.
 */
int catalog_parse_for(const char *buf, size_t len, const char *ns, const char *name,
		      struct rq_catalog **ret, struct rq_error *e);
void catalog_free(struct rq_catalog *c);
/* "report", "adopt", "ignore" */
const char *catalog_unchained_name(enum rq_unchained_mode m);
/* The node baseline profile (catalog node.baseline); -ENOENT when there is none. */
int catalog_baseline(const struct rq_catalog *c, struct rq_profile *ret);

/*
 * lint.c: what `validate` warns about (valid, wrong in meaning), appended to
 * @warn: a profile's class against its PFC and ECN (with the node baseline's
 * requirements, @baseline may be NULL; @path its JSON path), and every
 * profile of a catalog and its node.wiring rules an earlier one hides.
 */
void profile_warnings(const struct rq_profile *p, const struct rq_profile *baseline,
		      const char *path, struct rq_errlist *warn);
void catalog_warnings(const struct rq_catalog *c, struct rq_errlist *warn);

/*
 * Resolution per DESIGN.md: the name from args.cni.profile, else the NAD's
 * "profile", else the namespace default. The policy is @ns's entry, else
 * "*", else (catalog present, no entry) nothing is allowed. A name must be
 * in the policy's allow list; inline "qos" needs "inline": true and yields
 * a profile named "inline"; a name and qos together -> RQ_ERR_CONFIG.
 * No catalog (@cat NULL): only the built-in roce-lossless; another name ->
 * RQ_ERR_CONFIG, inline qos -> RQ_ERR_NOT_ALLOWED (secure default).
 * pf: nc->pf if set, else cat->pf_max (ensure without a catalog); a pf above
 * pf_max -> RQ_ERR_NOT_ALLOWED. Not allowed -> RQ_ERR_NOT_ALLOWED; unknown
 * name -> RQ_ERR_CONFIG. @ret and @ret_pf are written only on success.
 */
int netconf_resolve_profile(const struct rq_netconf *nc, const struct rq_catalog *cat,
			    const char *ns, struct rq_profile *ret, enum rq_pf_mode *ret_pf,
			    struct rq_error *e);

#endif
