package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The read, write and fair locks of {@link ReactiveRedisLockClient} against a real Redis:
 * read pipelines run together and a write pipeline waits for them, nested locks of one
 * pipeline re-enter, are covered by the write hold or fail as an upgrade, and fair
 * pipelines get the lock in the order they asked.
 */
class ReactiveReadWriteAndFairLockTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private RedisLockClient client;

	private ReactiveRedisLockClient locks;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient();
		this.locks = ReactiveRedisLockClient.create(this.client);
	}

	@Test
	void readPipelinesRunTogetherAndAWritePipelineWaitsForThem() throws Exception {
		String name = LockTestClients.uniqueName();
		AtomicInteger readersInside = new AtomicInteger();
		Sinks.One<String> firstDone = Sinks.one();
		Sinks.One<String> secondDone = Sinks.one();
		var first = this.locks.readLock(name).withLock(WAIT, null, Mono.defer(() -> {
			readersInside.incrementAndGet();
			return firstDone.asMono();
		})).toFuture();
		var second = this.locks.readLock(name).withLock(WAIT, null, Mono.defer(() -> {
			readersInside.incrementAndGet();
			return secondDone.asMono();
		})).toFuture();
		await().atMost(WAIT).until(() -> readersInside.get() == 2);
		var write = this.locks.writeLock(name).withLock(WAIT, null, Mono.fromCallable(() -> "written")).toFuture();
		firstDone.tryEmitValue("a");
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("a");
		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !write.isDone());
		secondDone.tryEmitValue("b");
		assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("b");
		assertThat(write.get(10, TimeUnit.SECONDS)).isEqualTo("written");
		LockTestClients.assertNothingLeftBehind(this.client);
	}

	@Test
	void aReadInsideAWriteOfThePipelineRunsUnderTheWriteHoldAndAWriteInsideAReadFailsAtOnce() {
		String name = LockTestClients.uniqueName();
		ReactiveLock read = this.locks.readLock(name);
		ReactiveLock write = this.locks.writeLock(name);
		assertThat(write.withLock(WAIT, null, read.withLock(WAIT, null, Mono.just("read under write")))
			.block(Duration.ofSeconds(20))).isEqualTo("read under write");
		assertThat(read.withLock(WAIT, null, write.withLock(WAIT, null, Mono.just("never")))
			.onErrorResume(IllegalMonitorStateException.class, (ex) -> Mono.just(ex.getMessage()))
			.block(Duration.ofSeconds(20))).contains("holds the read lock of '" + name + "'");
		assertThat(write.withLock(WAIT, null, write.withLock(WAIT, null, Mono.just("re-entered")))
			.block(Duration.ofSeconds(20))).isEqualTo("re-entered");
	}

	@Test
	void fairPipelinesGetTheLockInTheOrderTheyAsked() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getFairLock(name);
		holder.lock();
		org.springframework.data.redis.core.StringRedisTemplate redisTemplate = this.clients.newTemplate();
		List<Integer> order = Collections.synchronizedList(new ArrayList<>());
		List<java.util.concurrent.CompletableFuture<Integer>> pipelines = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int position = i;
			pipelines.add(this.locks.fairLock(name).withLock(Duration.ofSeconds(20), null, Mono.fromCallable(() -> {
				order.add(position);
				return position;
			})).toFuture());
			await().atMost(WAIT)
				.until(() -> redisTemplate.opsForZSet().zCard("lock:{" + name + "}:fair:queue") == position + 1);
		}
		holder.unlock();
		for (var pipeline : pipelines) {
			pipeline.get(20, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2, 3);
	}

}
