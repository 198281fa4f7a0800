package io.github.redislock.docs.kinds;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisFairLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LockMode;

/** The code of docs/fair-locks.md. */
class FairSnippets {

	static void fair(RedisLockClient locks, Printer printer) throws InterruptedException {
		// tag::fair-lock[]
		RedisLock turn = locks.getFairLock("printer");
		// granted in the order the waiters asked
		if (turn.tryLock(30, TimeUnit.SECONDS)) {
			try {
				printer.print();
			}
			finally {
				turn.unlock();
			}
		}
		// end::fair-lock[]
	}

	static void handle(RedisLockClient locks) {
		// tag::fair-handle[]
		RedisFairLock printerQueue = locks.getFairLock("printer");
		CompletableFuture<LockHandle> myTurn = printerQueue.acquireAsync(Duration.ofMinutes(1), null);
		// cancelling the future takes it out of the queue
		// end::fair-handle[]
	}

	static class PrintService {

		private final Printer printer = new Printer();

		// tag::annotation[]
		@DistributedLock(name = "printer", mode = LockMode.FAIR, waitTime = "30s")
		public void print() {
			printer.print();
		}
		// end::annotation[]

	}

	static class Printer {

		void print() {
		}

	}

}
