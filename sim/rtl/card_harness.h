// SPDX-License-Identifier: MIT
// The RTL card (rtl/card/quire_card_top.sv) under Verilator, as a host sees
// it: BAR0 register reads and writes (one C++ call each, one clock cycle
// each), a window of host memory the card's DMA mover reaches, and the
// interrupt pulses it sends. Host memory lives here, behind a link modelled as
// PCIe is (a latency and a rate each way): the card's host port asks for 64-byte
// lines, several in flight, and gets its answers in order.
// Time moves only when the caller makes it: each access is a cycle, and
// run() adds more. The host memory may be the harness's own (the constructor's)
// or the caller's (attach_host: what rtl_device.cpp serves to quire-sim's hosts).
#ifndef QUIRE_SIM_RTL_CARD_HARNESS_H
#define QUIRE_SIM_RTL_CARD_HARNESS_H

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class Vquire_card_top;
class VerilatedContext;

namespace quire_rtl
{

class CardHarness
{
      public:
	// Host memory of `host_bytes`, seen by the card at DMA addresses [iova, iova + host_bytes).
	CardHarness(uint64_t iova, uint32_t host_bytes);
	~CardHarness();
	CardHarness(const CardHarness &) = delete;
	CardHarness &operator=(const CardHarness &) = delete;

	// Loads the firmware ELF into IMEM/DMEM under reset, then releases reset.
	// False with `error` when the file is unusable or does not fit the memories.
	bool boot(const char *elf_path, std::string &error);

	// Between boot() and the first run: the ID block names only the engines of `keep`
	// (QUIRE_CAP_*) from then on, as a card without the others would; the firmware reads
	// the caps once, when it starts.
	void keep_caps(uint32_t keep);

	// The host link: a request is answered `latency_cycles` after it is taken, and each
	// direction takes a 64-byte line at `gbs` GB/s (at the card's 250 MHz). By default
	// 16 cycles and 12 GB/s (PCIe Gen3 x16), or QUIRE_RTL_HOST_LATENCY and
	// QUIRE_RTL_HOST_GBS from the environment.
	void set_host_link(unsigned latency_cycles, double gbs);
	unsigned host_link_latency() const
	{
		return link_latency_;
	}
	double host_link_gbs() const
	{
		return link_gbs_;
	}

	uint32_t bar_read(uint32_t offset);
	void bar_write(uint32_t offset, uint32_t value);
	void run(uint64_t cycles);
	// Runs until a store to sim-exit, at most `max_cycles`: false if none came.
	bool run_to_exit(uint64_t max_cycles, uint32_t &code);

	// The card's DMA window becomes `size` bytes of the caller's memory at `mem`, seen at
	// DMA addresses [iova, iova + size); size 0 (or mem NULL) is no host: the mover refuses
	// every transfer, and a request already under way touches nothing (counted as stray).
	void attach_host(uint8_t *mem, uint64_t iova, uint64_t size);

	// Between clock edges: the core waits in WFI, no host write is pending for it, and
	// the control block's wake-up time (0: none) and the cycle counter. An idle card stays
	// idle until a BAR write or its wake-up time: no cycle in between changes anything but
	// the counter, so advance_idle() may move the counter forward instead of clocking.
	bool idle() const;
	uint64_t wake_at() const;
	uint64_t card_cycles() const;
	// Moves the cycle counter forward by up to `cycles`, never past the wake-up time.
	void advance_idle(uint64_t cycles);

	// The network port (docs/network.md): attached, its link is up at `addr`, and each frame
	// it sends (the CRC it computed put into the header) goes to `send`, whose answer --
	// QUIRE_OK, QUIRE_ERR_BUSY, ...; `nobody` when no port had the address -- the port
	// gets in the next cycle.
	using NetSend = std::function<uint32_t(uint8_t *frame, uint32_t len, bool &nobody)>;
	void attach_net(uint16_t addr, NetSend send);
	// Streams a received frame (a datagram as it came) into the port, a beat a cycle while
	// the port has room: false while the previous one is still going in (frame untouched).
	bool net_feed(std::vector<uint8_t> &frame);
	bool net_feeding() const
	{
		return rx_off_ < rx_frame_.size() || rx_empty_;
	}
	// The streams' pace: the longest frame each way so far (its beats, and the cycles from
	// its first beat to its last, both counted), and the cycles in which a beat went each
	// way at once. A port at line rate takes as many cycles as beats.
	struct NetSpan {
		uint64_t beats = 0, cycles = 0;
	};
	struct NetPace {
		NetSpan tx, rx;
		uint64_t both_ways = 0;
	};
	const NetPace &net_pace() const
	{
		return pace_;
	}
	// A link that paces the transmit stream (card_ring.h): whether the port may hand over a
	// beat in the next cycles (by default always); what the last cycle did (a beat offered,
	// the bytes of the beat taken, 0: none); and the bytes of the 64-byte lines the host
	// link has taken so far each way.
	void set_net_tx_ready(bool ready);
	struct Traffic {
		bool tx_offered = false;
		unsigned tx_taken = 0;
		uint64_t host_read = 0, host_written = 0;
	};
	const Traffic &traffic() const
	{
		return traffic_;
	}

	uint8_t *host()
	{
		return host_mem_;
	}
	uint64_t iova() const
	{
		return iova_;
	}
	uint64_t cycles() const
	{
		return cycles_;
	}
	uint64_t instructions() const
	{
		return instructions_;
	}
	uint64_t irqs() const
	{
		return irqs_;
	}
	uint64_t traps() const
	{
		return traps_;
	}
	// DMA requests outside the window: the mover's checks must make this 0.
	uint64_t stray_host_accesses() const
	{
		return stray_;
	}
	const std::string &console() const
	{
		return console_;
	}

      private:
	static constexpr double kClockHz = 250e6;
	struct HostRequest {
		uint64_t due, addr, be;
		bool write;
		std::array<uint32_t, 16> wdata;
	};
	void cycle();
	void host_link_request();
	void host_link_answer();
	struct HostPins; // a host port's signals: the first (DMA channel 0, queue) or the second
	HostPins host_pins(unsigned port);
	bool host_port_take(const HostPins &pins);
	void host_port_record(const HostPins &pins, std::deque<HostRequest> &pending);
	void host_port_answer(const HostPins &pins, std::deque<HostRequest> &pending);
	bool host_line_ok(uint64_t addr, uint64_t be) const;
	void net_rx_present();
	void net_tx_take();

	std::unique_ptr<VerilatedContext> context_;
	std::unique_ptr<Vquire_card_top> top_;
	std::vector<uint8_t> host_;
	uint8_t *host_mem_;
	uint64_t host_size_;
	uint64_t iova_;
	unsigned link_latency_ = 16;
	double link_gbs_ = 12.0;
	double credit_read_ = 0, credit_write_ = 0;
	std::deque<HostRequest> host_pending_;  // the host port's requests (DMA channel 0, queue)
	std::deque<HostRequest> host1_pending_; // the second host port's (DMA channel 1)
	uint64_t cycles_ = 0, instructions_ = 0, irqs_ = 0, traps_ = 0, stray_ = 0;
	std::string console_;
	bool exited_ = false;
	uint32_t exit_code_ = 0;
	NetSend net_send_;
	std::vector<uint8_t> tx_frame_, rx_frame_;
	size_t rx_off_ = 0;
	bool rx_empty_ = false;     // an empty datagram: one beat of no bytes still to go in
	unsigned rx_presented_ = 0; // bytes of the beat offered this cycle (+1: offered)
	bool tx_done_ = false, tx_nobody_ = false;
	uint32_t tx_status_ = 0;
	bool tx_beat_ = false;                 // a transmit beat taken this cycle
	uint64_t tx_first_ = 0, rx_first_ = 0; // the cycle of the frame's first beat
	uint64_t tx_beats_ = 0, rx_beats_ = 0; // the frame's beats so far
	NetPace pace_;
	Traffic traffic_;
};

} // namespace quire_rtl

#endif
