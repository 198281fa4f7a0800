package io.github.redislock.docs.kinds;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Mono;

import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;

/** The code of docs/semaphores.md. */
class SemaphoreSnippets {

	static void client(RedisLockClient locks, Partner partner) {
		// tag::client[]
		RedisSemaphore partnerCalls = locks.getSemaphore("partner-api", 5);
		// at most 5 holders across all instances; each permit is a handle
		try (LockHandle permit = partnerCalls.acquire(Duration.ofSeconds(2), null)) {
			partner.call(permit.fencingToken());
		}
		// end::client[]
	}

	static void tryAndAsync(RedisLockClient locks) {
		// tag::try-async[]
		RedisSemaphore exports = locks.getSemaphore("exports", 2);
		Optional<LockHandle> now = exports.tryAcquire(Duration.ZERO, Duration.ofMinutes(10));
		CompletableFuture<LockHandle> later = exports.acquireAsync(Duration.ofMinutes(1), null);
		int free = exports.availablePermits(); // asks Redis
		// end::try-async[]
		now.ifPresent(LockHandle::release);
		later.thenAccept(LockHandle::release);
	}

	static Mono<String> reactive(ReactiveRedisLockClient reactive, Mono<String> call) {
		// tag::reactive[]
		Mono<String> limited = reactive.semaphore("partner-api", 5).withLock(Duration.ofSeconds(2), null, call);
		// end::reactive[]
		return limited;
	}

	static class ExportService {

		// tag::annotation[]
		@DistributedLock(name = "export", key = "#region", permits = 2, waitTime = "30s")
		public void export(String region) {
			// at most 2 exports of a region run at once, across all instances
		}
		// end::annotation[]

		// tag::annotation-skip[]
		@DistributedLock(name = "report", permits = 3, waitTime = "0", ifLocked = IfLocked.SKIP)
		public CompletableFuture<Void> report() {
			// at most 3 reports until their futures complete; a fourth is skipped
			return CompletableFuture.completedFuture(null);
		}
		// end::annotation-skip[]

	}

	interface Partner {

		void call(long fencingToken);

	}

}
