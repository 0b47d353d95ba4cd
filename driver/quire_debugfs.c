// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/dri/N/quire_objects, what the driver holds right
 * now (buffer objects, jobs), what is in flight on the ring, and the bytes its
 * buffer objects pin (this card's, every card's) with the caps in force. Debian's kernel
 * has no kmemleak; a test reads this before and after it runs and closes its
 * files, and any object or job left over is a leak of the driver's.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <drm/drm_file.h>

#include "quire_drv.h"

static int quire_objects_show(struct seq_file *m, void *unused)
{
	struct quire_device *qdev = m->private;

	seq_printf(m, "bos %d\n", atomic_read(&qdev->bos));
	seq_printf(m, "jobs %d\n", atomic_read(&qdev->jobs));
	seq_printf(m, "in_flight %u\n", READ_ONCE(qdev->in_flight));
	seq_printf(m, "pinned %lld\n", (long long)atomic64_read(&qdev->pinned));
	seq_printf(m, "pinned_all %llu\n", quire_pin_global_bytes());
	seq_printf(m, "pinned_max %llu\n", quire_pin_global_cap());
	seq_printf(m, "pinned_file_max %llu\n", quire_pin_file_cap());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(quire_objects);

/* The DRM core removes the minor's directory, and this file with it, on unregister. */
void quire_debugfs_init(struct drm_minor *minor)
{
	debugfs_create_file("quire_objects", 0444, minor->debugfs_root, to_quire(minor->dev),
			    &quire_objects_fops);
}
