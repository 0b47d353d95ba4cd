// SPDX-License-Identifier: MIT
/*
 * quire-bench-gloo: Gloo's ring all-reduce of fp32 (AllreduceRingChunked: reduce-scatter
 * then all-gather in pipelined chunks, over Gloo's TCP transport), timed as
 * quire-bench-allreduce times quire and MPI: the slowest rank's time, best of N after
 * one warm-up. Started by `quire bench allreduce --link` under mpirun only for the rank
 * and size (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE); Gloo's ranks meet through a
 * file store in a shared directory. Rank 0 writes "BYTES SECONDS" lines to OUT, which
 * quire-bench-allreduce --gloo OUT prints beside quire and MPI.
 *
 *   quire-bench-gloo --store DIR --ip ADDR --min BYTES --max BYTES --repeat N --out OUT
 */
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

static double now()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

static int env_int(const char *name)
{
	const char *v = getenv(name);
	return v ? atoi(v) : -1;
}

int main(int argc, char **argv)
{
	std::string store, ip, out;
	size_t min = 0, max = 0;
	int repeat = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		std::string k = argv[i];
		const char *v = argv[i + 1];
		if (k == "--store")
			store = v;
		else if (k == "--ip")
			ip = v;
		else if (k == "--out")
			out = v;
		else if (k == "--min")
			min = strtoull(v, nullptr, 10);
		else if (k == "--max")
			max = strtoull(v, nullptr, 10);
		else if (k == "--repeat")
			repeat = atoi(v);
	}
	int rank = env_int("OMPI_COMM_WORLD_RANK"), size = env_int("OMPI_COMM_WORLD_SIZE");
	if (argc != 13 || store.empty() || ip.empty() || out.empty() || min < 256 || max < min ||
	    repeat < 1 || rank < 0 || size < 1) {
		fprintf(stderr, "usage: mpirun -np W quire-bench-gloo --store DIR --ip ADDR --min "
				"BYTES --max BYTES --repeat N --out FILE\n");
		return 2;
	}
	try {
		gloo::transport::tcp::attr attr(ip.c_str());
		auto dev = gloo::transport::tcp::CreateDevice(attr);
		gloo::rendezvous::FileStore fs(store);
		auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
		ctx->setTimeout(std::chrono::seconds(120));
		ctx->connectFullMesh(fs, dev);
		FILE *f = rank == 0 ? fopen(out.c_str(), "w") : nullptr;
		if (rank == 0 && !f) {
			perror(out.c_str());
			return 1;
		}
		gloo::BarrierAllToAll barrier(ctx);
		std::vector<double> slowest(1);
		gloo::AllreduceRing<double> max_time(ctx, {slowest.data()}, 1,
						     gloo::ReductionFunction<double>::max);
		for (size_t bytes = min; bytes <= max; bytes *= 4) {
			size_t n = bytes / 4;
			std::vector<float> x(n);
			for (size_t i = 0; i < n; i++)
				x[i] = (float)((i * 2654435761u + (size_t)rank) % 2001) / 1000.0f -
				       1.0f;
			gloo::AllreduceRingChunked<float> ar(ctx, {x.data()}, (int)n);
			double best = 1e30;
			for (int r = 0; r <= repeat; r++) {
				barrier.run();
				double t0 = now();
				ar.run();
				slowest[0] = now() - t0;
				max_time.run();
				if (r > 0 && slowest[0] < best)
					best = slowest[0];
			}
			if (f)
				fprintf(f, "%zu %.9f\n", bytes, best);
		}
		if (f && fclose(f) != 0) {
			perror(out.c_str());
			return 1;
		}
	} catch (const std::exception &e) {
		fprintf(stderr, "quire-bench-gloo rank %d: %s\n", rank, e.what());
		return 1;
	}
	return 0;
}
