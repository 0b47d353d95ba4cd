// SPDX-License-Identifier: MIT
// The RTL card behind sim/device.h (rtl_device.h). One thread owns the
// Verilator model: it builds it, boots the firmware, clocks it, serves the
// host's accesses between clock edges, and frees it. A caller's MMIO access is
// handed to that thread and waited for; the thread looks for one every cycle.
#include "rtl_device.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "card_harness.h"
#include "quire/frame.h"
#include "quire/regs.h"
#include "quire/status.h"

namespace {

// The RTL card's BAR blocks sit where the emu's do (docs/rtl-card.md).
constexpr uint32_t kRbId = 0x000, kRbCmdq = 0x100, kRbCplq = 0x200, kRbIrq = 0x300;
// Cycles clocked between looks at the interrupt line and the core's sleep.
constexpr unsigned kBatch = 1024;
// A wake-up nearer than this is clocked to, not slept to.
constexpr uint64_t kMinSleepCycles = 20000;

enum class Req { None, Read, Write, Attach, Detach, Stop };

class RtlDevice;

struct Handle {
	struct quire_device dev; // first: the C side's pointer
	RtlDevice *self;
};

class RtlDevice {
      public:
	Handle handle;

	explicit RtlDevice(const struct quire_device_ops *ops) : handle{{ops}, this} {}

	// Starts the model's thread and waits for the boot. False with `error`.
	bool start(const std::string &elf, const struct quire_netport_config *net, std::string &error)
	{
		if (net) {
			net_addr_ = net->addr;
			static const struct quire_reliable_link_rx_ops rx = {net_room, net_deliver};
			int st = quire_reliable_link_open(net, &rx, this, &link_);
			if (st != QUIRE_OK) {
				error = std::string("cannot attach to the network in ") + net->dir + ": " +
					quire_strerror(st);
				return false;
			}
		}
		thread_ = std::thread([this, elf] { run(elf); });
		std::unique_lock<std::mutex> lk(m_);
		done_cv_.wait(lk, [this] { return booted_ != 0; });
		if (booted_ < 0) {
			lk.unlock();
			thread_.join();
			close_net();
			error = boot_error_;
			return false;
		}
		return true;
	}

	~RtlDevice()
	{
		if (thread_.joinable()) {
			access(Req::Stop, 0, 0);
			thread_.join();
		}
		close_net();
	}

	uint32_t access(Req kind, uint32_t offset, uint32_t value, uint8_t *mem = nullptr,
			uint64_t iova = 0, uint64_t size = 0)
	{
		std::lock_guard<std::mutex> one(caller_m_); // one access at a time, in order
		std::unique_lock<std::mutex> lk(m_);
		req_ = kind;
		req_offset_ = offset;
		req_value_ = value;
		req_mem_ = mem;
		req_iova_ = iova;
		req_size_ = size;
		req_done_ = false;
		pending_.store(true, std::memory_order_release);
		sim_cv_.notify_one();
		done_cv_.wait(lk, [this] { return req_done_; });
		return req_result_;
	}

	void set_irq(quire_irq_fn fn, void *ctx)
	{
		std::lock_guard<std::mutex> lk(m_);
		irq_fn_ = fn;
		irq_ctx_ = ctx;
	}

	void stats(uint64_t *clocked, uint64_t *skipped) const
	{
		if (clocked)
			*clocked = clocked_.load();
		if (skipped)
			*skipped = skipped_.load();
	}

      private:
	void run(const std::string &elf)
	{
		std::unique_ptr<quire_rtl::CardHarness> card;
		std::string error;
		try {
			card = std::make_unique<quire_rtl::CardHarness>(0, 0);
			card->attach_host(nullptr, 0, 0); // no host until one attaches
			if (link_)
				card->attach_net(net_addr_, [this](uint8_t *f, uint32_t len, bool &nobody) {
					uint32_t dst = f[QUIRE_FRAME_OFF_ADDRS + 2] |
						       uint32_t(f[QUIRE_FRAME_OFF_ADDRS + 3]) << 8;
					int none = 0;
					int st =
					    quire_reliable_link_send(link_, dst, f, len, &none);
					nobody = none != 0;
					return uint32_t(st);
				});
			if (!card->boot(elf.c_str(), error))
				card.reset();
		} catch (const std::bad_alloc &) {
			error = "out of memory for the card model";
			card.reset();
		}
		uint32_t clock_hz = card ? card->bar_read(kRbId + QUIRE_ID_CLOCK_HZ) : 0;
		{
			std::lock_guard<std::mutex> lk(m_);
			booted_ = card ? 1 : -1;
			boot_error_ = error;
			done_cv_.notify_all();
		}
		if (!card)
			return;
		if (!clock_hz)
			clock_hz = 250000000u;
		uint64_t irqs_seen = card->irqs();
		std::unique_lock<std::mutex> lk(m_);
		for (;;) {
			if (req_ != Req::None) {
				bool stop = req_ == Req::Stop;
				req_result_ = serve(*card);
				req_ = Req::None;
				req_done_ = true;
				pending_.store(false, std::memory_order_relaxed);
				done_cv_.notify_all();
				if (stop)
					break;
				continue;
			}
			lk.unlock();
			for (unsigned i = 0; i < kBatch; i++) {
				if (pending_.load(std::memory_order_acquire) || card->irqs() != irqs_seen)
					break;
				card->run(1);
			}
			clocked_.store(card->cycles(), std::memory_order_relaxed);
			if (card->irqs() != irqs_seen) {
				irqs_seen = card->irqs();
				// The causes an MSI would carry: pending and enabled (costs two cycles).
				uint32_t causes = card->bar_read(kRbIrq + QUIRE_IRQ_STATUS) &
						  card->bar_read(kRbIrq + QUIRE_IRQ_MASK);
				quire_irq_fn fn;
				void *ctx;
				{
					std::lock_guard<std::mutex> g(m_);
					fn = irq_fn_;
					ctx = irq_ctx_;
				}
				if (fn)
					fn(ctx, causes); // never with a lock held
			}
			lk.lock();
			if (mail_full_ && card->net_feed(mail_)) { // a frame from the network goes in
				mail_full_ = false;
				room_cv_.notify_all();
			}
			if (req_ == Req::None && !mail_full_ && card->idle())
				sleep(*card, lk, clock_hz);
		}
		lk.unlock();
		card.reset(); // the model is freed on the thread that made it
	}

	// The core waits in WFI and nothing is pending for it: sleep until a host access, or
	// until its wake-up time comes at the card's clock in real time. The counter is then
	// moved on by the time slept, wake-up time or not: it is the free-running clock a host
	// measures the card's standstill by (nothing else changes while the card sleeps).
	void sleep(quire_rtl::CardHarness &card, std::unique_lock<std::mutex> &lk,
		   uint32_t clock_hz)
	{
		auto pred = [this] { return req_ != Req::None || mail_full_; };
		uint64_t wake = card.wake_at(), now = card.card_cycles();
		auto t0 = std::chrono::steady_clock::now();
		if (!wake) {
			sim_cv_.wait(lk, pred);
		} else {
			if (wake <= now || wake - now < kMinSleepCycles)
				return; // near: clocked to
			double secs = double(wake - now) / clock_hz;
			sim_cv_.wait_for(lk, std::chrono::duration<double>(secs), pred);
		}
		double slept = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				   .count();
		uint64_t before = card.card_cycles();
		card.advance_idle(uint64_t(slept * clock_hz));
		skipped_.fetch_add(card.card_cycles() - before, std::memory_order_relaxed);
	}

	// A host's request, between clock edges (on the model's thread, m_ held).
	uint32_t serve(quire_rtl::CardHarness &card)
	{
		switch (req_) {
		case Req::Read:
			return card.bar_read(req_offset_);
		case Req::Write:
			card.bar_write(req_offset_, req_value_);
			return 0;
		case Req::Attach:
			card.attach_host(req_mem_, req_iova_, req_size_);
			return 0;
		case Req::Detach:
			// As the emu: no window (a transfer under way touches nothing more), the
			// queues disabled (a new queue epoch: the firmware drops the old host's
			// work), interrupts masked and cleared.
			card.attach_host(nullptr, 0, 0);
			card.bar_write(kRbCmdq + QUIRE_Q_CTRL, 0);
			card.bar_write(kRbCplq + QUIRE_Q_CTRL, 0);
			card.bar_write(kRbIrq + QUIRE_IRQ_MASK, 0);
			card.bar_write(kRbIrq + QUIRE_IRQ_STATUS, 0xffffffffu);
			return 0;
		default:
			return 0;
		}
	}

	// The network's receive thread (sim/reliable_link.c): one frame at a time waits in mail_
	// for the model's thread to stream it into the port; a full mailbox stops reading the
	// socket.
	static int net_room(void *ctx)
	{
		auto *d = static_cast<RtlDevice *>(ctx);
		std::unique_lock<std::mutex> lk(d->m_);
		d->room_cv_.wait(lk, [d] { return !d->mail_full_ || d->net_stop_; });
		return !d->net_stop_;
	}

	static void net_deliver(void *ctx, const uint8_t *frame, uint32_t len)
	{
		auto *d = static_cast<RtlDevice *>(ctx);
		std::lock_guard<std::mutex> lk(d->m_);
		d->mail_.assign(frame, frame + len);
		d->mail_full_ = true;
		d->sim_cv_.notify_one();
	}

	void close_net()
	{
		{
			std::lock_guard<std::mutex> lk(m_);
			net_stop_ = true;
			room_cv_.notify_all();
		}
		quire_reliable_link_close(link_);
		link_ = nullptr;
	}

	std::thread thread_;
	std::mutex caller_m_;
	std::mutex m_;
	std::condition_variable sim_cv_, done_cv_, room_cv_;
	struct quire_reliable_link *link_ = nullptr;
	uint16_t net_addr_ = 0;
	std::vector<uint8_t> mail_;
	bool mail_full_ = false, net_stop_ = false;
	std::atomic<bool> pending_{false};
	Req req_ = Req::None;
	uint32_t req_offset_ = 0, req_value_ = 0, req_result_ = 0;
	uint8_t *req_mem_ = nullptr;
	uint64_t req_iova_ = 0, req_size_ = 0;
	bool req_done_ = false;
	int booted_ = 0;
	std::string boot_error_;
	quire_irq_fn irq_fn_ = nullptr;
	void *irq_ctx_ = nullptr;
	std::atomic<uint64_t> clocked_{0}, skipped_{0};
};

RtlDevice *of(struct quire_device *dev)
{
	return reinterpret_cast<Handle *>(dev)->self;
}

uint32_t op_mmio_read(struct quire_device *dev, uint32_t offset)
{
	return of(dev)->access(Req::Read, offset, 0);
}

void op_mmio_write(struct quire_device *dev, uint32_t offset, uint32_t value)
{
	of(dev)->access(Req::Write, offset, value);
}

int op_attach_host(struct quire_device *dev, void *mem, uint64_t iova, uint64_t size)
{
	if (!mem || size == 0 || iova + size < iova)
		return QUIRE_ERR_INVALID;
	of(dev)->access(Req::Attach, 0, 0, static_cast<uint8_t *>(mem), iova, size);
	return QUIRE_OK;
}

void op_detach_host(struct quire_device *dev)
{
	of(dev)->access(Req::Detach, 0, 0);
}

void op_set_irq(struct quire_device *dev, quire_irq_fn fn, void *ctx)
{
	of(dev)->set_irq(fn, ctx);
}

void op_destroy(struct quire_device *dev)
{
	delete of(dev);
}

const struct quire_device_ops rtl_ops = {
    op_mmio_read, op_mmio_write, op_attach_host, op_detach_host, op_set_irq, op_destroy,
};

void say(const struct quire_rtl_config *cfg, const std::string &why)
{
	if (cfg && cfg->error && cfg->error_len)
		std::snprintf(cfg->error, cfg->error_len, "%s", why.c_str());
}

} // namespace

extern "C" struct quire_device *quire_rtl_device_create(const struct quire_rtl_config *cfg)
{
	if (!cfg || !cfg->fw_elf) {
		say(cfg, "no firmware ELF named");
		return nullptr;
	}
	RtlDevice *d = new (std::nothrow) RtlDevice(&rtl_ops);
	if (!d) {
		say(cfg, "out of memory");
		return nullptr;
	}
	std::string error;
	if (!d->start(cfg->fw_elf, cfg->net, error)) {
		delete d;
		say(cfg, error);
		return nullptr;
	}
	return &d->handle.dev;
}

extern "C" void quire_rtl_device_stats(struct quire_device *dev, uint64_t *clocked,
				       uint64_t *skipped)
{
	of(dev)->stats(clocked, skipped);
}
