// SPDX-License-Identifier: GPL-2.0
/*
 * dcbsim: a test fixture for rdma-qos's QEMU guest. It gives one existing
 * netdev that has no DCB (QEMU's igb) in-memory IEEE dcbnl ops, so that
 * RTM_GETDCB/RTM_SETDCB go through the real kernel dcbnl code. It counts
 * every SET the kernel hands it in /sys/module/dcbsim/parameters/sets, so a
 * test can see that an ADD on an already-right port wrote nothing.
 *
 *   insmod dcbsim.ko ifname=<netdev> [mlx5=1 [flap_ms=N]] [fw_dcbx=1] [stats=1 [storm=0]]
 *
 * mlx5=1 behaves as drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c does
 * where a DCB client can tell: DSCP APP entries only, one per DSCP (the
 * driver keeps a dscp2prio table), no apptrust (trust follows the DSCP APP
 * count), and a PFC change toggles the port link. fw_dcbx=1 reports DCBX
 * without DCB_CAP_DCBX_HOST (firmware-managed) while the IEEE setters still
 * accept, as mlx5 does in firmware mode.
 *
 * stats=1 replaces the netdev's ethtool statistics (get_sset_count,
 * get_strings, get_ethtool_stats; the rest of its ethtool ops stay) with the
 * port counters mlx5e has under the same names (en_stats.c): per priority
 * rx_prio%d_{bytes,packets,discards} and tx_prio%d_{bytes,packets} always;
 * rx_prio%d_{pause,pause_duration,pause_transition} and
 * tx_prio%d_{pause,pause_duration} only for priorities with PFC on, so the
 * name list changes with the PFC configuration as mlx5's does;
 * rx_discards_phy; tx_pause_storm_{warning,error}_events unless storm=0 (the
 * stall-detection capability); rx_prio%d_{buf,cong}_discard, which mlx5e
 * reads per traffic class of the host (PPCNT per-TC groups) despite the
 * name. Link-level pause, mlx5e's way: the netdev's pause setting is
 * dcbsim's (get/set_pauseparam, `ethtool -A <pf> rx on tx on`, off at
 * load), and while it is on rx/tx_global_pause, _pause_duration and
 * rx_global_pause_transition follow the PFC ones, with priority 0's values
 * (en_stats.c reads per_prio_counters[0] for them). The storm-prevention
 * tunable is mlx5e's too (get/set_tunable ETHTOOL_PFC_PREVENTION_TOUT):
 * "auto" is stored as 100 ms and read back as 100, 0 turns it off, other
 * values 80..8000 ms (unless storm=0: -EOPNOTSUPP). A test sets them through debugfs:
 * `echo "rx_prio3_pause 120" > /sys/kernel/debug/dcbsim/stats` (any name of
 * any priority, shown or not: a hidden counter keeps its value, as the
 * hardware's does); reading the file lists every counter.
 *
 * vf_stats=1 does the same for every netdev of driver vf_driver (igbvf), in
 * any netns, now and later: after the driver's own statistics it shows the
 * four RoCE traffic counters mlx5e has on a VF netdev (en_stats.c vport
 * group: rx/tx_vport_rdma_unicast_{packets,bytes}). A VF shows them once a
 * test gives it a value through debugfs, keyed by the VF's PCI address:
 * `echo "0000:81:10.4 tx_vport_rdma_unicast_bytes 5000" > .../dcbsim/vf_stats`
 * ("+N" adds), "<pci> reset" sets all four to 0 (a re-created netdev; a
 * netdev registered anew starts at 0 too), "<pci> off" hides them again (a
 * driver without them). The netdev keeps the hooks when it moves into a pod's
 * netns (its ethtool ops go with it).
 *
 * `echo 1 > /sys/kernel/debug/dcbsim/reset` puts the port back to the driver's
 * defaults as any mlx5e (re)initialisation does (devlink reload, firmware
 * reset, health recovery: mlx5e_dcbnl_initialize), and counts it in
 * /sys/module/dcbsim/parameters/resets: see port_reset.
 *
 * `echo MS > /sys/kernel/debug/dcbsim/carrier_drop` drops the carrier for MS ms
 * as a cable or the switch port would, no DCB change behind it (counted in
 * /sys/module/dcbsim/parameters/drops): the flap the agent must still count
 * beside the toggles of its own PFC writes (tests/vm/agent_flap.sh).
 */
#include <linux/debugfs.h>
#include <linux/ethtool.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <net/dcbnl.h>

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "netdev to give DCB ops");

static int sets;
module_param(sets, int, 0444);
MODULE_PARM_DESC(sets, "SET operations applied so far");

static bool mlx5;
module_param(mlx5, bool, 0444);
MODULE_PARM_DESC(mlx5, "behave as mlx5e's dcbnl ops (APP replace, no apptrust, PFC toggles link)");

static unsigned int flap_ms = 1500;
module_param(flap_ms, uint, 0444);
MODULE_PARM_DESC(flap_ms, "mlx5: carrier stays off this long after a PFC change (0: no toggle)");

static char *link_fn = "igb_has_link";
module_param(link_fn, charp, 0444);
MODULE_PARM_DESC(link_fn, "mlx5: driver link check held down during a toggle (\"\": none)");

static bool fw_dcbx;
module_param(fw_dcbx, bool, 0444);
MODULE_PARM_DESC(fw_dcbx, "DCBX managed by firmware: getdcbx without DCB_CAP_DCBX_HOST");

static int flaps;
module_param(flaps, int, 0444);
MODULE_PARM_DESC(flaps, "mlx5: link toggles so far");

static int drops;
module_param(drops, int, 0444);
MODULE_PARM_DESC(drops, "carrier drops nobody caused so far (debugfs dcbsim/carrier_drop)");

static int resets;
module_param(resets, int, 0444);
MODULE_PARM_DESC(resets, "resets to the driver's defaults so far (debugfs dcbsim/reset)");

static bool stats;
module_param(stats, bool, 0444);
MODULE_PARM_DESC(stats, "give the netdev mlx5e's port counters as its ethtool stats (values: debugfs dcbsim/stats)");

static bool storm = true;
module_param(storm, bool, 0444);
MODULE_PARM_DESC(storm, "stats: the tx_pause_storm_*_events counters exist (mlx5: stall detection capability)");

static bool vf_stats;
module_param(vf_stats, bool, 0444);
MODULE_PARM_DESC(vf_stats, "give every vf_driver netdev mlx5e's vport RDMA counters (values: debugfs dcbsim/vf_stats)");

static char *vf_driver = "igbvf";
module_param(vf_driver, charp, 0444);
MODULE_PARM_DESC(vf_driver, "vf_stats: the driver whose netdevs get them");

#define DCBSIM_NDSCP 64

/* mlx5e's per-priority counters: the traffic ones always, the PFC ones while PFC is on */
enum { PS_RX_BYTES, PS_RX_PACKETS, PS_RX_DISCARDS, PS_TX_BYTES, PS_TX_PACKETS, PS_NTRAFFIC };
enum { PS_RX_PAUSE, PS_RX_PAUSE_DUR, PS_TX_PAUSE, PS_TX_PAUSE_DUR, PS_RX_PAUSE_TRANS, PS_NPFC };
static const char *const traffic_fmt[PS_NTRAFFIC] = {
	"rx_prio%d_bytes", "rx_prio%d_packets", "rx_prio%d_discards", "tx_prio%d_bytes",
	"tx_prio%d_packets",
};
/* as en_stats.c orders them; the duration is in microseconds */
static const char *const pfc_fmt[PS_NPFC] = {
	"rx_prio%d_pause", "rx_prio%d_pause_duration", "tx_prio%d_pause",
	"tx_prio%d_pause_duration", "rx_prio%d_pause_transition",
};
/* per traffic class (pnat 2), named per "prio" as mlx5e names them */
enum { PS_TC_BUF, PS_TC_CONG, PS_NTC };
static const char *const tc_fmt[PS_NTC] = { "rx_prio%d_buf_discard", "rx_prio%d_cong_discard" };
/* the same order as pfc_fmt: en_stats.c formats one table with "global" */
static const char *const global_names[PS_NPFC] = {
	"rx_global_pause", "rx_global_pause_duration", "tx_global_pause",
	"tx_global_pause_duration", "rx_global_pause_transition",
};
/* en_ethtool.c: MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC, _TOUT_MIN_MSEC, _TOUT_MAX_MSEC */
#define DCBSIM_PREVEN_AUTO_MS 100
#define DCBSIM_PREVEN_MIN_MS 80
#define DCBSIM_PREVEN_MAX_MS 8000
enum { PS_DISCARDS_PHY, PS_STORM_WARN, PS_STORM_ERR, PS_NPORT };
static const char *const port_names[PS_NPORT] = {
	"rx_discards_phy", "tx_pause_storm_warning_events", "tx_pause_storm_error_events",
};

static struct {
	spinlock_t lock;
	u64 traffic[IEEE_8021QAZ_MAX_TCS][PS_NTRAFFIC];
	u64 pfc[IEEE_8021QAZ_MAX_TCS][PS_NPFC];
	u64 tc[IEEE_8021QAZ_MAX_TCS][PS_NTC];
	u64 port[PS_NPORT];
	bool rx_pause, tx_pause; /* link-level pause, as ethtool -A set it */
	u16 preven_ms;		 /* the stall watermark as mlx5 stores it */
	struct ethtool_ops ops; /* the netdev's own, with the three stats hooks ours */
	const struct ethtool_ops *saved;
	struct dentry *dir;
} st = { .lock = __SPIN_LOCK_UNLOCKED(st.lock) };

static struct {
	struct net_device *dev;
	netdevice_tracker tracker;
	const struct dcbnl_rtnl_ops *saved;
	const struct ethtool_ops *saved_eth; /* stats=1: the netdev's own ethtool ops */
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	u8 dcbx;
	u8 trust[8];
	int ntrust;
	/* mlx5: the DSCP -> priority table and how many DSCP APP entries exist */
	u8 dscp2prio[DCBSIM_NDSCP];
	int dscp_app_cnt;
	/* mlx5 link toggle: carrier held off until the work runs */
	struct delayed_work flap;
	bool link_held;
	bool flap_restore;
	bool probed;
} port;

static DEFINE_MUTEX(port_lock);

static bool ours(struct net_device *dev)
{
	return dev && dev == port.dev;
}

static int p_getets(struct net_device *dev, struct ieee_ets *ets)
{
	if (!ours(dev))
		return -ENODEV;
	*ets = port.ets;
	return 0;
}

static int p_setets(struct net_device *dev, struct ieee_ets *ets)
{
	u8 cap = port.ets.ets_cap;

	if (!ours(dev))
		return -ENODEV;
	port.ets = *ets;
	port.ets.ets_cap = cap;
	sets++;
	return 0;
}

static int p_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	if (!ours(dev))
		return -ENODEV;
	*pfc = port.pfc;
	return 0;
}

static int p_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	if (!ours(dev))
		return -ENODEV;
	port.pfc.pfc_en = pfc->pfc_en;
	port.pfc.mbc = pfc->mbc;
	port.pfc.delay = pfc->delay;
	sets++;
	return 0;
}

static int p_setapp(struct net_device *dev, struct dcb_app *app)
{
	int err;

	if (!ours(dev))
		return -ENODEV;
	if (app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;
	err = dcb_ieee_setapp(dev, app);
	if (!err)
		sets++;
	return err;
}

static int p_delapp(struct net_device *dev, struct dcb_app *app)
{
	int err;

	if (!ours(dev))
		return -ENODEV;
	err = dcb_ieee_delapp(dev, app);
	if (!err)
		sets++;
	return err;
}

static u8 p_getdcbx(struct net_device *dev)
{
	return ours(dev) ? port.dcbx : 0;
}

static u8 p_setdcbx(struct net_device *dev, u8 mode)
{
	/* host-managed IEEE only; a non-zero return is a failure for dcbnl */
	if (!ours(dev) || (mode & DCB_CAP_DCBX_LLD_MANAGED) || !(mode & DCB_CAP_DCBX_VER_IEEE))
		return 1;
	port.dcbx = mode;
	sets++;
	return 0;
}

static int p_setapptrust(struct net_device *dev, u8 *sel, int nsel)
{
	if (!ours(dev))
		return -ENODEV;
	if (nsel < 0 || nsel > (int)sizeof(port.trust))
		return -EINVAL;
	memcpy(port.trust, sel, nsel);
	port.ntrust = nsel;
	sets++;
	return 0;
}

static int p_getapptrust(struct net_device *dev, u8 *sel, int *nsel)
{
	if (!ours(dev))
		return -ENODEV;
	memcpy(sel, port.trust, port.ntrust);
	*nsel = port.ntrust;
	return 0;
}

static const struct dcbnl_rtnl_ops port_ops = {
	.ieee_getets = p_getets,
	.ieee_setets = p_setets,
	.ieee_getpfc = p_getpfc,
	.ieee_setpfc = p_setpfc,
	.ieee_setapp = p_setapp,
	.ieee_delapp = p_delapp,
	.getdcbx = p_getdcbx,
	.setdcbx = p_setdcbx,
	.dcbnl_setapptrust = p_setapptrust,
	.dcbnl_getapptrust = p_getapptrust,
};

/*
 * mlx5 personality. mlx5_toggle_port_link() takes the port down and up in
 * firmware; the carrier returns when the link has trained again. Here the
 * carrier goes off at once and comes back after flap_ms. The netdev's own
 * driver would bring it back on its next watchdog run (igb: every 2 s), so
 * its link check (link_fn) is made to report "down" for our device until
 * then: the toggle lasts flap_ms, not whatever the watchdog allows.
 */
struct hold_data {
	bool ours;
};

static int hold_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hold_data *d = (struct hold_data *)ri->data;
	void *arg = (void *)regs_get_kernel_argument(regs, 0);
	struct net_device *dev = READ_ONCE(port.dev);

	/* igb_has_link() takes the adapter, which is netdev_priv() */
	d->ours = dev && (arg == dev || arg == netdev_priv(dev));
	return 0;
}

static int hold_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct hold_data *d = (struct hold_data *)ri->data;

	if (d->ours && READ_ONCE(port.link_held))
		regs_set_return_value(regs, 0);
	return 0;
}

static struct kretprobe hold_probe = {
	.handler = hold_ret,
	.entry_handler = hold_entry,
	.data_size = sizeof(struct hold_data),
	.maxactive = 8,
};

/*
 * The carrier off now (carrier_down_count + 1 when it was on) and back after @ms, if it was
 * on before. Called under rtnl.
 */
static void port_link_down(struct net_device *dev, unsigned int ms)
{
	/* as mlx5: the port comes back up only if it was up */
	if (!port.link_held)
		port.flap_restore = netif_carrier_ok(dev);
	WRITE_ONCE(port.link_held, true);
	netif_carrier_off(dev);
	mod_delayed_work(system_wq, &port.flap, msecs_to_jiffies(ms));
}

/* mlx5_toggle_port_link: admin down, then up again (called under rtnl: dcbnl) */
static void port_toggle_link(struct net_device *dev)
{
	if (!flap_ms)
		return;
	port_link_down(dev, flap_ms);
	flaps++;
}

/* called under rtnl */
static void port_link_release(void)
{
	if (!port.link_held)
		return;
	WRITE_ONCE(port.link_held, false);
	if (port.flap_restore && port.dev)
		netif_carrier_on(port.dev);
}

static void port_flap_end(struct work_struct *work)
{
	rtnl_lock();
	port_link_release();
	rtnl_unlock();
}

static int m_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	if (!ours(dev))
		return -ENODEV;
	/* mlx5e_dcbnl_ieee_setpfc toggles the link only when pfc_en changes */
	if (pfc->pfc_en != port.pfc.pfc_en) {
		port.pfc.pfc_en = pfc->pfc_en;
		port_toggle_link(dev);
	}
	/* the cable length; mbc is not kept */
	if (pfc->delay && pfc->delay < 1000)
		port.pfc.delay = pfc->delay;
	sets++;
	return 0;
}

/*
 * mlx5e_dcbnl_ieee_setapp: DSCP only; the DSCP's entry is replaced (the old
 * one, the table's current priority, is deleted from the kernel's list if it
 * is there), so adding the exact current entry again succeeds.
 */
static int m_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct dcb_app old = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	bool is_new;
	int err;

	if (!ours(dev))
		return -ENODEV;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= DCBSIM_NDSCP ||
	    app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;
	old.protocol = app->protocol;
	old.priority = port.dscp2prio[app->protocol];
	port.dscp2prio[app->protocol] = app->priority;
	is_new = dcb_ieee_delapp(dev, &old) != 0;
	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	if (is_new)
		port.dscp_app_cnt++;
	sets++;
	return 0;
}

/* mlx5e_dcbnl_ieee_delapp: only the DSCP's current entry can go (else -ENOENT) */
static int m_delapp(struct net_device *dev, struct dcb_app *app)
{
	int err;

	if (!ours(dev))
		return -ENODEV;
	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= DCBSIM_NDSCP)
		return -EINVAL;
	if (!port.dscp_app_cnt || app->priority != port.dscp2prio[app->protocol])
		return -ENOENT;
	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;
	/* the driver resets the DSCP to priority 0; trust goes back to PCP at zero */
	port.dscp2prio[app->protocol] = 0;
	port.dscp_app_cnt--;
	sets++;
	return 0;
}

/* mlx5e_dcbnl_setdcbx: 0 hands DCBX to firmware, HOST takes it back, LLD_MANAGED never */
static u8 m_setdcbx(struct net_device *dev, u8 mode)
{
	if (!ours(dev) || (mode & DCB_CAP_DCBX_LLD_MANAGED))
		return 1;
	if (!mode) {
		port.dcbx &= ~DCB_CAP_DCBX_HOST;
		sets++;
		return 0;
	}
	if (!(mode & DCB_CAP_DCBX_HOST))
		return 1;
	port.dcbx = mode;
	sets++;
	return 0;
}

/* mlx5e_dcbnl_ops' IEEE part: no dcbnl_{get,set}apptrust */
static const struct dcbnl_rtnl_ops mlx5_ops = {
	.ieee_getets = p_getets,
	.ieee_setets = p_setets,
	.ieee_getpfc = p_getpfc,
	.ieee_setpfc = m_setpfc,
	.ieee_setapp = m_setapp,
	.ieee_delapp = m_delapp,
	.getdcbx = p_getdcbx,
	.setdcbx = m_setdcbx,
};

/*
 * ethtool statistics (stats=1). The ethtool core calls these under rtnl, as
 * dcbnl's setters run, so the PFC set cannot change between a count and the
 * strings or values of the same request.
 */
static int st_nport(void)
{
	return storm ? PS_NPORT : PS_DISCARDS_PHY + 1;
}

static bool st_global(void)
{
	return st.rx_pause || st.tx_pause;
}

static int st_count(void)
{
	return IEEE_8021QAZ_MAX_TCS * (PS_NTRAFFIC + PS_NTC) +
	       (hweight8(port.pfc.pfc_en) + st_global()) * PS_NPFC + st_nport();
}

static int s_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return port.saved_eth && port.saved_eth->get_sset_count ?
			       port.saved_eth->get_sset_count(dev, sset) : -EOPNOTSUPP;
	return ours(dev) ? st_count() : -EOPNOTSUPP;
}

static void s_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int p, i;

	if (sset != ETH_SS_STATS) {
		if (port.saved_eth && port.saved_eth->get_strings)
			port.saved_eth->get_strings(dev, sset, data);
		return;
	}
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; i < PS_NTRAFFIC; i++)
			ethtool_sprintf(&data, traffic_fmt[i], p);
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; (port.pfc.pfc_en & BIT(p)) && i < PS_NPFC; i++)
			ethtool_sprintf(&data, pfc_fmt[i], p);
	for (i = 0; st_global() && i < PS_NPFC; i++)
		ethtool_puts(&data, global_names[i]);
	for (i = 0; i < st_nport(); i++)
		ethtool_puts(&data, port_names[i]);
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; i < PS_NTC; i++)
			ethtool_sprintf(&data, tc_fmt[i], p);
}

static void s_stats(struct net_device *dev, struct ethtool_stats *es, u64 *data)
{
	int p, i, n = 0;

	spin_lock_bh(&st.lock);
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; i < PS_NTRAFFIC; i++)
			data[n++] = st.traffic[p][i];
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; (port.pfc.pfc_en & BIT(p)) && i < PS_NPFC; i++)
			data[n++] = st.pfc[p][i];
	for (i = 0; st_global() && i < PS_NPFC; i++)
		data[n++] = st.pfc[0][i];
	for (i = 0; i < st_nport(); i++)
		data[n++] = st.port[i];
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		for (i = 0; i < PS_NTC; i++)
			data[n++] = st.tc[p][i];
	spin_unlock_bh(&st.lock);
}

/* mlx5e_get/set_pauseparam: no autoneg; the state is the port's (here: ours) */
static void s_getpause(struct net_device *dev, struct ethtool_pauseparam *pp)
{
	pp->autoneg = 0;
	pp->rx_pause = st.rx_pause;
	pp->tx_pause = st.tx_pause;
}

static int s_setpause(struct net_device *dev, struct ethtool_pauseparam *pp)
{
	if (pp->autoneg)
		return -EINVAL;
	st.rx_pause = pp->rx_pause;
	st.tx_pause = pp->tx_pause;
	return 0;
}

/* mlx5e_get/set_pfc_prevention_tout: auto is stored as 100 ms, and read back so */
static int s_gettunable(struct net_device *dev, const struct ethtool_tunable *t, void *data)
{
	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EINVAL;
	if (!storm)
		return -EOPNOTSUPP;
	*(u16 *)data = st.preven_ms;
	return 0;
}

static int s_settunable(struct net_device *dev, const struct ethtool_tunable *t,
			const void *data)
{
	u16 v;

	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EINVAL;
	if (!storm)
		return -EOPNOTSUPP;
	v = *(const u16 *)data;
	if (v == PFC_STORM_PREVENTION_AUTO)
		v = DCBSIM_PREVEN_AUTO_MS;
	if (v != PFC_STORM_PREVENTION_DISABLE &&
	    (v < DCBSIM_PREVEN_MIN_MS || v > DCBSIM_PREVEN_MAX_MS))
		return -EINVAL;
	st.preven_ms = v;
	return 0;
}

/* the counter called @name, whether the netdev shows it now or not; NULL: none */
static u64 *st_find(const char *name)
{
	char buf[ETH_GSTRING_LEN];
	int p, i;

	for (i = 0; i < st_nport(); i++)
		if (!strcmp(name, port_names[i]))
			return &st.port[i];
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++) {
		for (i = 0; i < PS_NTRAFFIC; i++) {
			snprintf(buf, sizeof(buf), traffic_fmt[i], p);
			if (!strcmp(name, buf))
				return &st.traffic[p][i];
		}
		for (i = 0; i < PS_NTC; i++) {
			snprintf(buf, sizeof(buf), tc_fmt[i], p);
			if (!strcmp(name, buf))
				return &st.tc[p][i];
		}
		for (i = 0; i < PS_NPFC; i++) {
			snprintf(buf, sizeof(buf), pfc_fmt[i], p);
			if (!strcmp(name, buf))
				return &st.pfc[p][i];
		}
	}
	return NULL;
}

/* "NAME VALUE" per line: set; "NAME +N": add */
static ssize_t st_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[256], *line, *cur, *sp;
	u64 v, *c;
	int err;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cur = buf;
	while ((line = strsep(&cur, "\n"))) {
		bool add;

		if (!*line)
			continue;
		sp = strchr(line, ' ');
		if (!sp)
			return -EINVAL;
		*sp++ = '\0';
		add = *sp == '+';
		err = kstrtou64(sp + add, 0, &v);
		if (err)
			return err;
		spin_lock_bh(&st.lock);
		c = st_find(line);
		if (c)
			*c = add ? *c + v : v;
		spin_unlock_bh(&st.lock);
		if (!c)
			return -ENOENT;
	}
	return len;
}

static int st_show(struct seq_file *m, void *v)
{
	char buf[ETH_GSTRING_LEN];
	int p, i;

	spin_lock_bh(&st.lock);
	for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++) {
		for (i = 0; i < PS_NTRAFFIC; i++) {
			snprintf(buf, sizeof(buf), traffic_fmt[i], p);
			seq_printf(m, "%s %llu\n", buf, st.traffic[p][i]);
		}
		for (i = 0; i < PS_NPFC; i++) {
			snprintf(buf, sizeof(buf), pfc_fmt[i], p);
			seq_printf(m, "%s %llu\n", buf, st.pfc[p][i]);
		}
		for (i = 0; i < PS_NTC; i++) {
			snprintf(buf, sizeof(buf), tc_fmt[i], p);
			seq_printf(m, "%s %llu\n", buf, st.tc[p][i]);
		}
	}
	for (i = 0; i < st_nport(); i++)
		seq_printf(m, "%s %llu\n", port_names[i], st.port[i]);
	spin_unlock_bh(&st.lock);
	return 0;
}

static int st_open(struct inode *inode, struct file *f)
{
	return single_open(f, st_show, NULL);
}

static const struct file_operations st_fops = {
	.owner = THIS_MODULE,
	.open = st_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = st_write,
};

/*
 * vf_stats=1: the vport RDMA counters of VF netdevs. The hooked netdevs are
 * kept (with a reference) in vfs.devs, under rtnl (the notifier runs under
 * it, so do the ethtool hooks); the values per PCI address under vfs.lock.
 */
#define VF_NCTR 4
#define VF_MAX_SLOTS 16
#define VF_MAX_DEVS 16
static const char *const vf_names[VF_NCTR] = {
	"rx_vport_rdma_unicast_packets", "rx_vport_rdma_unicast_bytes",
	"tx_vport_rdma_unicast_packets", "tx_vport_rdma_unicast_bytes",
};

static struct {
	spinlock_t lock;
	struct {
		char pci[32];
		bool on;
		u64 v[VF_NCTR];
	} slot[VF_MAX_SLOTS];
	struct {
		struct net_device *dev;
		netdevice_tracker tracker;
	} devs[VF_MAX_DEVS];
	struct ethtool_ops ops; /* the driver's own, with the three stats hooks ours */
	const struct ethtool_ops *saved;
	bool registered;
} vfs = { .lock = __SPIN_LOCK_UNLOCKED(vfs.lock) };

static const char *vf_pci(struct net_device *dev)
{
	return dev->dev.parent ? dev_name(dev->dev.parent) : "";
}

/* the slot of @pci (vfs.lock held); @make: take a free one; -1: none */
static int vf_slot(const char *pci, bool make)
{
	int i, empty = -1;

	for (i = 0; i < VF_MAX_SLOTS; i++) {
		if (vfs.slot[i].pci[0] && !strcmp(vfs.slot[i].pci, pci))
			return i;
		if (!vfs.slot[i].pci[0] && empty < 0)
			empty = i;
	}
	if (!make || empty < 0 || strlen(pci) >= sizeof(vfs.slot[0].pci))
		return -1;
	strscpy(vfs.slot[empty].pci, pci, sizeof(vfs.slot[0].pci));
	return empty;
}

static bool vf_on(struct net_device *dev)
{
	bool on;
	int i;

	spin_lock_bh(&vfs.lock);
	i = vf_slot(vf_pci(dev), false);
	on = i >= 0 && vfs.slot[i].on;
	spin_unlock_bh(&vfs.lock);
	return on;
}

static int vf_own_count(struct net_device *dev)
{
	int n = vfs.saved && vfs.saved->get_sset_count ?
			vfs.saved->get_sset_count(dev, ETH_SS_STATS) : 0;

	return n < 0 ? 0 : n;
}

static int v_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return vfs.saved && vfs.saved->get_sset_count ?
			       vfs.saved->get_sset_count(dev, sset) : -EOPNOTSUPP;
	return vf_own_count(dev) + (vf_on(dev) ? VF_NCTR : 0) ?: -EOPNOTSUPP;
}

static void v_strings(struct net_device *dev, u32 sset, u8 *data)
{
	int i, n = sset == ETH_SS_STATS ? vf_own_count(dev) : 0;

	if (vfs.saved && vfs.saved->get_strings && (sset != ETH_SS_STATS || n))
		vfs.saved->get_strings(dev, sset, data);
	if (sset != ETH_SS_STATS || !vf_on(dev))
		return;
	data += n * ETH_GSTRING_LEN;
	for (i = 0; i < VF_NCTR; i++)
		ethtool_puts(&data, vf_names[i]);
}

static void v_stats(struct net_device *dev, struct ethtool_stats *es, u64 *data)
{
	int i, s, n = vf_own_count(dev);

	if (n && vfs.saved && vfs.saved->get_ethtool_stats)
		vfs.saved->get_ethtool_stats(dev, es, data);
	/* the count was taken under the same rtnl: on then is on now */
	if (es->n_stats < n + VF_NCTR)
		return;
	spin_lock_bh(&vfs.lock);
	s = vf_slot(vf_pci(dev), false);
	for (i = 0; i < VF_NCTR; i++)
		data[n + i] = s >= 0 ? vfs.slot[s].v[i] : 0;
	spin_unlock_bh(&vfs.lock);
}

static bool vf_is_ours(struct net_device *dev)
{
	struct device *p = dev->dev.parent;

	return p && p->driver && p->driver->name && !strcmp(p->driver->name, vf_driver);
}

static int vf_find(struct net_device *dev)
{
	int i;

	for (i = 0; i < VF_MAX_DEVS; i++)
		if (vfs.devs[i].dev == dev)
			return i;
	return -1;
}

/* under rtnl */
static void vf_attach(struct net_device *dev)
{
	int i, s;

	if (vf_find(dev) >= 0 || !vf_is_ours(dev))
		return; /* a netns move: the hooks went along */
	if (!vfs.saved) {
		vfs.saved = dev->ethtool_ops;
		if (vfs.saved)
			vfs.ops = *vfs.saved;
		vfs.ops.get_sset_count = v_sset_count;
		vfs.ops.get_strings = v_strings;
		vfs.ops.get_ethtool_stats = v_stats;
	}
	if (dev->ethtool_ops != vfs.saved)
		return; /* another ops table than the first VF's: leave it */
	i = vf_find(NULL);
	if (i < 0)
		return;
	vfs.devs[i].dev = dev;
	netdev_hold(dev, &vfs.devs[i].tracker, GFP_KERNEL);
	dev->ethtool_ops = &vfs.ops;
	/* a netdev made anew counts from 0, as the hardware's vport counters do */
	spin_lock_bh(&vfs.lock);
	s = vf_slot(vf_pci(dev), false);
	if (s >= 0)
		memset(vfs.slot[s].v, 0, sizeof(vfs.slot[s].v));
	spin_unlock_bh(&vfs.lock);
}

static void vf_detach(int i)
{
	struct net_device *dev = vfs.devs[i].dev;

	dev->ethtool_ops = vfs.saved;
	netdev_put(dev, &vfs.devs[i].tracker);
	vfs.devs[i].dev = NULL;
}

static int vf_event(struct notifier_block *nb, unsigned long ev, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	int i;

	if (ev == NETDEV_REGISTER)
		vf_attach(dev);
	/* a netns move unregisters with reg_state still REGISTERED: keep it */
	if (ev == NETDEV_UNREGISTER && dev->reg_state == NETREG_UNREGISTERING) {
		i = vf_find(dev);
		if (i >= 0)
			vf_detach(i);
	}
	return NOTIFY_DONE;
}

static struct notifier_block vf_nb = { .notifier_call = vf_event };

/* "<pci> NAME VALUE" / "<pci> NAME +N" / "<pci> reset" / "<pci> off", one a line */
static ssize_t vf_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[512], *line, *cur, *name, *val;
	int err, i, s;
	u64 v = 0;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cur = buf;
	while ((line = strsep(&cur, "\n"))) {
		bool add = false;

		if (!*line)
			continue;
		name = strchr(line, ' ');
		if (!name)
			return -EINVAL;
		*name++ = '\0';
		val = strchr(name, ' ');
		if (val) {
			*val++ = '\0';
			add = *val == '+';
			err = kstrtou64(val + add, 0, &v);
			if (err)
				return err;
		}
		for (i = 0; val && i < VF_NCTR && strcmp(name, vf_names[i]); i++)
			;
		if ((val && i == VF_NCTR) || (!val && strcmp(name, "reset") && strcmp(name, "off")))
			return -ENOENT;
		spin_lock_bh(&vfs.lock);
		s = vf_slot(line, !!val);
		if (s >= 0 && val) {
			vfs.slot[s].on = true;
			vfs.slot[s].v[i] = add ? vfs.slot[s].v[i] + v : v;
		} else if (s >= 0 && !strcmp(name, "reset")) {
			memset(vfs.slot[s].v, 0, sizeof(vfs.slot[s].v));
		} else if (s >= 0) {
			vfs.slot[s].on = false;
		}
		spin_unlock_bh(&vfs.lock);
		if (s < 0 && val)
			return -ENOSPC;
	}
	return len;
}

static int vf_show(struct seq_file *m, void *v)
{
	int s, i;

	spin_lock_bh(&vfs.lock);
	for (s = 0; s < VF_MAX_SLOTS; s++) {
		if (!vfs.slot[s].pci[0])
			continue;
		seq_printf(m, "%s %s", vfs.slot[s].pci, vfs.slot[s].on ? "on" : "off");
		for (i = 0; i < VF_NCTR; i++)
			seq_printf(m, " %s=%llu", vf_names[i], vfs.slot[s].v[i]);
		seq_putc(m, '\n');
	}
	spin_unlock_bh(&vfs.lock);
	return 0;
}

static int vf_open(struct inode *inode, struct file *f)
{
	return single_open(f, vf_show, NULL);
}

static const struct file_operations vf_fops = {
	.owner = THIS_MODULE,
	.open = vf_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = vf_write,
};

/* the hooks off every VF netdev (the notifier is gone, so no new ones) */
static void vf_stop(void)
{
	int i;

	if (vfs.registered)
		unregister_netdevice_notifier(&vf_nb);
	vfs.registered = false;
	rtnl_lock();
	for (i = 0; i < VF_MAX_DEVS; i++)
		if (vfs.devs[i].dev)
			vf_detach(i);
	rtnl_unlock();
}

/* The kernel keeps APP entries in a global list keyed by ifindex: drop ours. */
static void port_flush_dscp(struct net_device *dev)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	int d, p;

	for (d = 0; d < 64; d++)
		for (p = 0; p < IEEE_8021QAZ_MAX_TCS; p++) {
			app.protocol = d;
			app.priority = p;
			dcb_ieee_delapp(dev, &app);
		}
}

static void port_detach(void)
{
	if (!port.dev)
		return;
	/* the work may be running: it finds nothing to do once port.dev is gone */
	cancel_delayed_work(&port.flap);
	port_link_release();
	port_flush_dscp(port.dev);
	port.dev->dcbnl_ops = port.saved;
	if (port.saved_eth)
		port.dev->ethtool_ops = port.saved_eth;
	port.saved_eth = NULL;
	netdev_put(port.dev, &port.tracker);
	WRITE_ONCE(port.dev, NULL); /* read by the kretprobe without rtnl */
}

static int port_event(struct notifier_block *nb, unsigned long ev, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (ev == NETDEV_UNREGISTER && ours(dev)) {
		mutex_lock(&port_lock);
		port_detach();
		mutex_unlock(&port_lock);
	}
	return NOTIFY_DONE;
}

static struct notifier_block port_nb = { .notifier_call = port_event };

static void port_init_state(void)
{
	int i;

	port.ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	port.ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	port.ets.tc_tx_bw[0] = 100;
	for (i = 1; i < IEEE_8021QAZ_MAX_TCS; i++)
		port.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	port.pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
	port.dcbx = DCB_CAP_DCBX_VER_IEEE;
	/* mlx5e_dcbnl_initialize: CEE|IEEE, and HOST only in host mode */
	if (mlx5)
		port.dcbx |= DCB_CAP_DCBX_VER_CEE;
	if (!fw_dcbx)
		port.dcbx |= DCB_CAP_DCBX_HOST;
	port.trust[0] = DCB_APP_SEL_PCP; /* a NIC after reset trusts PCP only */
	port.ntrust = 1;
	/* the firmware's default table (dscp >> 3), with no APP entry: PCP trust */
	for (i = 0; i < DCBSIM_NDSCP; i++)
		port.dscp2prio[i] = i >> 3;
}

/*
 * The port as mlx5e_dcbnl_initialize leaves it after any (re)initialisation:
 * trust is the firmware's again (mlx5e_trust_initialize), PCP after a reset,
 * with its default DSCP table and so no DSCP APP entry (the driver makes them
 * only while trusting DSCP); PFC off, the firmware's default; ETS as
 * mlx5e_ets_init sets it with mlx5=1 (every TC vendor at 100%, priority 0 on
 * TC 1 and 1 on TC 0), else as this module starts. DCBX mode stays (the
 * driver queries the firmware's). mlx5e_dcbnl_initialize sends no DCB
 * notification, so neither does this; with mlx5=1 the carrier goes down and up
 * as the netdev's detach and attach take it. Called under rtnl.
 */
static void port_reset(void)
{
	struct net_device *dev = port.dev;
	u8 dcbx = port.dcbx;
	int i;

	port_flush_dscp(dev);
	memset(&port.ets, 0, sizeof(port.ets));
	memset(&port.pfc, 0, sizeof(port.pfc));
	port_init_state();
	port.dcbx = dcbx;
	port.dscp_app_cnt = 0;
	if (mlx5) {
		for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
			port.ets.tc_tx_bw[i] = 100;
			port.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
			port.ets.prio_tc[i] = i;
		}
		port.ets.prio_tc[0] = 1;
		port.ets.prio_tc[1] = 0;
		port_toggle_link(dev);
	}
	resets++;
}

static ssize_t reset_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	rtnl_lock();
	if (!port.dev) {
		rtnl_unlock();
		return -ENODEV;
	}
	port_reset();
	rtnl_unlock();
	pr_info("dcbsim: %s reset to the driver's defaults (#%d)\n", ifname, resets);
	return len;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = reset_write,
	.llseek = noop_llseek,
};

/*
 * A carrier drop nobody caused (a cable or optic, the switch port): `echo MS >
 * .../dcbsim/carrier_drop` takes the carrier off for MS ms (1..60000), with the
 * driver's link check held down as during a toggle where the hold is set up
 * (mlx5=1 with flap_ms), else until the driver's watchdog sees the link (igb:
 * within 2 s). DCB state is left alone; counted in drops, not in flaps.
 * igb has no ndo_change_carrier, so `ip link set carrier off` cannot do this.
 */
static ssize_t drop_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	unsigned int ms;
	int err = kstrtouint_from_user(ubuf, len, 10, &ms);

	if (err)
		return err;
	if (!ms || ms > 60000)
		return -EINVAL;
	rtnl_lock();
	if (!port.dev) {
		rtnl_unlock();
		return -ENODEV;
	}
	port_link_down(port.dev, ms);
	drops++;
	rtnl_unlock();
	pr_info("dcbsim: %s carrier dropped for %u ms (#%d)\n", ifname, ms, drops);
	return len;
}

static const struct file_operations drop_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = drop_write,
	.llseek = noop_llseek,
};

static int __init dcbsim_init(void)
{
	struct net_device *dev;
	int err;

	if (!ifname || !*ifname)
		return -EINVAL;
	INIT_DELAYED_WORK(&port.flap, port_flap_end);
	if (mlx5 && flap_ms && link_fn && *link_fn) {
		/* without the hold the toggle's length is the driver's, not flap_ms: refuse */
		hold_probe.kp.symbol_name = link_fn;
		err = register_kretprobe(&hold_probe);
		if (err) {
			pr_err("dcbsim: cannot hold %s down during a link toggle: %d\n", link_fn,
			       err);
			return err;
		}
		port.probed = true;
	}
	rtnl_lock();
	dev = dev_get_by_name(&init_net, ifname);
	if (!dev) {
		rtnl_unlock();
		err = -ENODEV;
		goto unprobe;
	}
	WRITE_ONCE(port.dev, dev);
	netdev_tracker_alloc(dev, &port.tracker, GFP_KERNEL);
	port.saved = dev->dcbnl_ops;
	port_init_state();
	dev->dcbnl_ops = mlx5 ? &mlx5_ops : &port_ops;
	if (stats) {
		port.saved_eth = dev->ethtool_ops;
		if (port.saved_eth)
			st.ops = *port.saved_eth;
		st.ops.get_sset_count = s_sset_count;
		st.ops.get_strings = s_strings;
		st.ops.get_ethtool_stats = s_stats;
		st.ops.get_pauseparam = s_getpause;
		st.ops.set_pauseparam = s_setpause;
		st.ops.get_tunable = s_gettunable;
		st.ops.set_tunable = s_settunable;
		dev->ethtool_ops = &st.ops;
	}
	rtnl_unlock();
	st.dir = debugfs_create_dir("dcbsim", NULL);
	if (!IS_ERR_OR_NULL(st.dir)) {
		debugfs_create_file("reset", 0200, st.dir, NULL, &reset_fops);
		debugfs_create_file("carrier_drop", 0200, st.dir, NULL, &drop_fops);
	}
	if (stats && !IS_ERR_OR_NULL(st.dir))
		debugfs_create_file("stats", 0600, st.dir, NULL, &st_fops);
	if (vf_stats && !IS_ERR_OR_NULL(st.dir))
		debugfs_create_file("vf_stats", 0600, st.dir, NULL, &vf_fops);
	err = register_netdevice_notifier(&port_nb);
	/* replays NETDEV_REGISTER for every netdev of every netns: the VFs there now */
	if (!err && vf_stats) {
		err = register_netdevice_notifier(&vf_nb);
		vfs.registered = !err;
		if (err)
			unregister_netdevice_notifier(&port_nb);
	}
	if (err) {
		/* a failed load frees this module: its ops must not stay on the netdev */
		vf_stop();
		rtnl_lock();
		port_detach();
		rtnl_unlock();
		debugfs_remove(st.dir);
		goto unprobe;
	}
	pr_info("dcbsim: DCB ops on %s%s%s%s%s\n", ifname, mlx5 ? " (mlx5)" : "",
		fw_dcbx ? " (firmware DCBX)" : "", stats ? " (mlx5e port stats)" : "",
		vf_stats ? " (mlx5e vport RDMA stats on VFs)" : "");
	return 0;
unprobe:
	if (port.probed)
		unregister_kretprobe(&hold_probe);
	return err;
}

static void __exit dcbsim_exit(void)
{
	debugfs_remove(st.dir);
	vf_stop();
	unregister_netdevice_notifier(&port_nb);
	rtnl_lock();
	mutex_lock(&port_lock);
	port_detach();
	mutex_unlock(&port_lock);
	rtnl_unlock();
	/* the work takes rtnl: wait for it outside */
	cancel_delayed_work_sync(&port.flap);
	if (port.probed)
		unregister_kretprobe(&hold_probe);
}

module_init(dcbsim_init);
module_exit(dcbsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdma-qos test fixture: in-memory IEEE DCB ops for one netdev");
