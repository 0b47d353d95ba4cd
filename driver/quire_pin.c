// SPDX-License-Identifier: GPL-2.0
/*
 * Caps on pinned memory. Every buffer object of BO_CREATE is host memory that
 * stays resident for the object's life (never swapped, never reclaimed), so any
 * user with the card's node could otherwise take the machine's memory. Two caps
 * bound it, both module parameters writable at run time by root:
 *
 * - pinned_file_max_mib: what one open file of a card may hold (its objects
 *   still alive, through a handle, an mmap, a job or an exported dma-buf, even
 *   after the file is closed);
 * - pinned_max_mib: what all objects of all cards may hold together.
 *
 * 0, the default, means a share of the RAM at load time: half of it for all
 * cards (the rest stays for the kernel and every other user), a quarter per
 * file (no single process can take the whole budget: a second user of a card
 * always finds room). A BO_CREATE past either cap fails with -EDQUOT, before
 * anything is allocated; the objects already there, the card and other files
 * are untouched. Imported dma-bufs are not counted here: their memory is the
 * exporter's, pinned and accounted by it.
 *
 * The counts go up at BO_CREATE and down exactly when the object is freed.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "quire_drv.h"

static unsigned int pinned_max_mib;
module_param(pinned_max_mib, uint, 0644);
MODULE_PARM_DESC(pinned_max_mib,
		 "MiB of buffer objects all cards may pin together (0: half of RAM)");

static unsigned int pinned_file_max_mib;
module_param(pinned_file_max_mib, uint, 0644);
MODULE_PARM_DESC(pinned_file_max_mib,
		 "MiB of buffer objects one open file may pin (0: a quarter of RAM)");

/* Bytes pinned by the objects of every card. */
static atomic64_t quire_pinned_all = ATOMIC64_INIT(0);

/* A cap in bytes: the parameter, or RAM / share when it is 0. */
static u64 cap_bytes(unsigned int mib, unsigned int share)
{
	if (mib)
		return (u64)mib << 20;
	return ((u64)totalram_pages() << PAGE_SHIFT) / share;
}

u64 quire_pin_global_cap(void)
{
	return cap_bytes(READ_ONCE(pinned_max_mib), 2);
}

u64 quire_pin_file_cap(void)
{
	return cap_bytes(READ_ONCE(pinned_file_max_mib), 4);
}

u64 quire_pin_global_bytes(void)
{
	return atomic64_read(&quire_pinned_all);
}

struct quire_pin_account *quire_pin_account_new(void)
{
	struct quire_pin_account *acct = kzalloc(sizeof(*acct), GFP_KERNEL_ACCOUNT);

	if (!acct)
		return NULL;
	kref_init(&acct->ref);
	atomic64_set(&acct->bytes, 0);
	return acct;
}

static void quire_pin_account_release(struct kref *ref)
{
	kfree(container_of(ref, struct quire_pin_account, ref));
}

void quire_pin_account_put(struct quire_pin_account *acct)
{
	kref_put(&acct->ref, quire_pin_account_release);
}

/*
 * Add bytes to both counts, or neither: each is added first and taken back when it
 * went past its cap, so two files racing for the last room cannot both get it.
 * The card's own count (debugfs) follows.
 */
int quire_pin_charge(struct quire_device *qdev, struct quire_pin_account *acct, u64 bytes)
{
	if (atomic64_add_return(bytes, &acct->bytes) > quire_pin_file_cap()) {
		atomic64_sub(bytes, &acct->bytes);
		return -EDQUOT;
	}
	if (atomic64_add_return(bytes, &quire_pinned_all) > quire_pin_global_cap()) {
		atomic64_sub(bytes, &quire_pinned_all);
		atomic64_sub(bytes, &acct->bytes);
		return -EDQUOT;
	}
	atomic64_add(bytes, &qdev->pinned);
	kref_get(&acct->ref);
	return 0;
}

/* The object of a charge is freed: its bytes go from every count, its account ref too. */
void quire_pin_uncharge(struct quire_device *qdev, struct quire_pin_account *acct, u64 bytes)
{
	atomic64_sub(bytes, &qdev->pinned);
	atomic64_sub(bytes, &quire_pinned_all);
	atomic64_sub(bytes, &acct->bytes);
	quire_pin_account_put(acct);
}
