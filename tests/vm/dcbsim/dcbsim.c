// SPDX-License-Identifier: GPL-2.0
/*
 * dcbsim: a test fixture for rdma-qos's QEMU guest. It gives one existing
 * netdev that has no DCB (QEMU's igb) in-memory IEEE dcbnl ops, so that
 * RTM_GETDCB/RTM_SETDCB go through the real kernel dcbnl code. It counts
 * every SET the kernel hands it in /sys/module/dcbsim/parameters/sets, so a
 * test can see that an ADD on an already-right port wrote nothing.
 *
 *   insmod dcbsim.ko ifname=<netdev>
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

static char *ifname;
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "netdev to give DCB ops");

static int sets;
module_param(sets, int, 0444);
MODULE_PARM_DESC(sets, "SET operations applied so far");

static struct {
	struct net_device *dev;
	netdevice_tracker tracker;
	const struct dcbnl_rtnl_ops *saved;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	u8 dcbx;
	u8 trust[8];
	int ntrust;
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
	port_flush_dscp(port.dev);
	port.dev->dcbnl_ops = port.saved;
	netdev_put(port.dev, &port.tracker);
	port.dev = NULL;
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

static int __init dcbsim_init(void)
{
	struct net_device *dev;
	int i, err;

	if (!ifname || !*ifname)
		return -EINVAL;
	rtnl_lock();
	dev = dev_get_by_name(&init_net, ifname);
	if (!dev) {
		rtnl_unlock();
		return -ENODEV;
	}
	port.dev = dev;
	netdev_tracker_alloc(dev, &port.tracker, GFP_KERNEL);
	port.saved = dev->dcbnl_ops;
	port.ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	port.ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	port.ets.tc_tx_bw[0] = 100;
	for (i = 1; i < IEEE_8021QAZ_MAX_TCS; i++)
		port.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	port.pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
	port.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	port.trust[0] = DCB_APP_SEL_PCP; /* a NIC after reset trusts PCP only */
	port.ntrust = 1;
	dev->dcbnl_ops = &port_ops;
	rtnl_unlock();
	err = register_netdevice_notifier(&port_nb);
	if (err) {
		/* a failed load frees this module: its ops must not stay on the netdev */
		rtnl_lock();
		port_detach();
		rtnl_unlock();
		return err;
	}
	pr_info("dcbsim: DCB ops on %s\n", ifname);
	return 0;
}

static void __exit dcbsim_exit(void)
{
	unregister_netdevice_notifier(&port_nb);
	rtnl_lock();
	mutex_lock(&port_lock);
	port_detach();
	mutex_unlock(&port_lock);
	rtnl_unlock();
}

module_init(dcbsim_init);
module_exit(dcbsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdma-qos test fixture: in-memory IEEE DCB ops for one netdev");
