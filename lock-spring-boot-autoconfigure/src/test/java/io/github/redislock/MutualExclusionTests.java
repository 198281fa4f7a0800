package io.github.redislock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion proven the way a user would see it fail: a read-modify-write of a
 * Redis counter that is not atomic on its own loses increments as soon as two holders
 * overlap.
 */
class MutualExclusionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void eightThreadsOnEachOfTwoClientsNeverOverlap() throws Exception {
		String name = LockTestClients.uniqueName();
		String counter = "counter:" + name;
		int iterations = 40;
		List<RedisLockClient> lockClients = List.of(this.clients.newClient(), this.clients.newClient());
		ExecutorService threads = Executors.newFixedThreadPool(16);
		List<Future<Integer>> acquisitions = new ArrayList<>();
		try {
			for (RedisLockClient client : lockClients) {
				StringRedisTemplate redisTemplate = this.clients.newTemplate();
				for (int t = 0; t < 8; t++) {
					acquisitions.add(threads
						.submit(() -> incrementUnderLock(client.getLock(name), redisTemplate, counter, iterations)));
				}
			}
			int total = 0;
			for (Future<Integer> acquired : acquisitions) {
				total += acquired.get(60, TimeUnit.SECONDS);
			}
			assertThat(total).isEqualTo(2 * 8 * iterations);
			assertThat(this.clients.newTemplate().opsForValue().get(counter)).isEqualTo(Integer.toString(total));
			assertThat(lockClients.get(0).getLock(name).isLocked()).isFalse();
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void twoJvmProcessesNeverOverlap() throws Exception {
		twoJvmProcesses(4, 50, "threads");
	}

	// per process: two threads lock as threads, one through handles, one through
	// withLockAsync, whose work and release run on other threads
	@Test
	void twoJvmProcessesMixingThreadAndHandleOwnersNeverOverlap() throws Exception {
		twoJvmProcesses(4, 50, "mixed");
	}

	@Test
	void handleAndThreadOwnersOfOneClientNeverOverlap() throws Exception {
		String name = LockTestClients.uniqueName();
		String counter = "counter:" + name;
		int iterations = 40;
		RedisLockClient client = this.clients.newClient();
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		ExecutorService threads = Executors.newFixedThreadPool(6);
		try {
			List<Future<Integer>> acquisitions = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				acquisitions.add(threads
					.submit(() -> incrementUnderLock(client.getLock(name), redisTemplate, counter, iterations)));
				acquisitions
					.add(threads.submit(() -> incrementUnderHandle(client, name, redisTemplate, counter, iterations)));
				acquisitions.add(threads
					.submit(() -> incrementUnderAsyncHandle(client, name, redisTemplate, counter, iterations)));
			}
			int total = 0;
			for (Future<Integer> acquired : acquisitions) {
				total += acquired.get(60, TimeUnit.SECONDS);
			}
			assertThat(total).isEqualTo(6 * iterations);
			assertThat(redisTemplate.opsForValue().get(counter)).isEqualTo(Integer.toString(total));
			assertThat(client.getLock(name).isLocked()).isFalse();
		}
		finally {
			threads.shutdownNow();
		}
	}

	private void twoJvmProcesses(int threadsPerProcess, int iterations, String owners) throws Exception {
		String name = LockTestClients.uniqueName();
		String counter = "counter:" + name;
		List<Process> processes = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			processes.add(new ProcessBuilder(WorkerJvm.command(CounterWorker.class, redis.server().host(),
					Integer.toString(redis.server().port()), name, counter, Integer.toString(threadsPerProcess),
					Integer.toString(iterations), owners))
				.redirectErrorStream(true)
				.start());
		}
		int total = 0;
		for (Process process : processes) {
			assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("worker process finished").isTrue();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			assertThat(process.exitValue()).as(output).isZero();
			String acquired = output.lines().filter((line) -> line.startsWith("acquired=")).findFirst().orElseThrow();
			total += Integer.parseInt(acquired.substring("acquired=".length()));
		}
		assertThat(total).isEqualTo(2 * threadsPerProcess * iterations);
		assertThat(this.clients.newTemplate().opsForValue().get(counter)).isEqualTo(Integer.toString(total));
	}

	static int incrementUnderLock(RedisLock lock, StringRedisTemplate redisTemplate, String counter, int iterations) {
		for (int i = 0; i < iterations; i++) {
			lock.lock();
			try {
				increment(redisTemplate, counter);
			}
			finally {
				lock.unlock();
			}
		}
		return iterations;
	}

	static int incrementUnderHandle(RedisLockClient client, String name, StringRedisTemplate redisTemplate,
			String counter, int iterations) {
		for (int i = 0; i < iterations; i++) {
			LockHandle handle = client.acquire(name, Duration.ofSeconds(60), null);
			try {
				increment(redisTemplate, counter);
			}
			finally {
				handle.release();
			}
		}
		return iterations;
	}

	static int incrementUnderAsyncHandle(RedisLockClient client, String name, StringRedisTemplate redisTemplate,
			String counter, int iterations) {
		for (int i = 0; i < iterations; i++) {
			client
				.withLockAsync(name, Duration.ofSeconds(60), null,
						() -> CompletableFuture.runAsync(() -> increment(redisTemplate, counter),
								TestThreads.perTask()))
				.join();
		}
		return iterations;
	}

	static void increment(StringRedisTemplate redisTemplate, String counter) {
		String value = redisTemplate.opsForValue().get(counter);
		int next = (value != null) ? Integer.parseInt(value) + 1 : 1;
		// give an overlapping holder the chance to read the same value
		Thread.yield();
		redisTemplate.opsForValue().set(counter, Integer.toString(next));
	}

}
