package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the lock client's command connection while a call's continuation, on Lettuce's
 * event loop, asks for a connection (an acquisition that ends and withdraws its waiter
 * does): Lettuce's close waits for that event loop, so a close that held the connection's
 * monitor while waiting and a continuation asking for the monitor waited for each other
 * for good (a build hung on it at a client's close). The continuation here asks exactly
 * while the close waits.
 */
class CommandConnectionCloseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory factory;

	private Thread closer;

	// Not when the close is still stuck: the factory's shutdown would wait for the stuck
	// event loop too, and the build would hang instead of reporting the failure.
	@AfterEach
	void destroyFactory() {
		if (this.factory != null && (this.closer == null || !this.closer.isAlive())) {
			this.factory.destroy();
		}
	}

	@Test
	void aContinuationAskingForAConnectionWhileTheConnectionClosesGetsAnAnswerAndTheCloseEnds() throws Exception {
		this.factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()), Duration.ofSeconds(10));
		CommandConnection connection = new CommandConnection(this.factory);
		RedisClusterAsyncCommands<byte[], byte[]> commands = connection.open(deadlineIn(Duration.ofSeconds(10)))
			.get(10, TimeUnit.SECONDS);
		Thread closer = new Thread(connection::close, "closer");
		closer.setDaemon(true);
		this.closer = closer;
		CompletableFuture<Thread.State> closerSeen = new CompletableFuture<>();
		CompletableFuture<Throwable> askedWhileClosing = new CompletableFuture<>();
		// a reply that comes once the continuation is in place: BLPOP on a key nobody
		// fills, for a second
		commands.blpop(1, "nothing-comes".getBytes(StandardCharsets.UTF_8))
			.toCompletableFuture()
			.whenComplete((reply, failure) -> {
				// on the event loop: close, and ask for a connection while the close
				// waits
				// for this very thread
				closer.start();
				closerSeen.complete(awaitWaiting(closer));
				connection.open(deadlineIn(Duration.ofSeconds(10)))
					.whenComplete((opened, refused) -> askedWhileClosing.complete(refused));
			});
		assertThat(closerSeen.get(30, TimeUnit.SECONDS)).as("the closing thread, while the continuation runs")
			.isIn(Thread.State.WAITING, Thread.State.TIMED_WAITING);
		assertThat(askedWhileClosing)
			.as("the continuation's ask for a connection while the connection closes (unanswered: the two wait for"
					+ " each other)")
			.succeedsWithin(Duration.ofSeconds(10))
			.satisfies((refused) -> assertThat(refused).hasMessage("The lock client is closed"));
		closer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(closer.isAlive()).as("the close still waiting").isFalse();
	}

	private static long deadlineIn(Duration duration) {
		return System.nanoTime() + duration.toNanos();
	}

	// the closer waits for the event loop (this thread) inside Lettuce's close, or is
	// blocked on a monitor; either way it is parked, within seconds on a loaded machine
	private static Thread.State awaitWaiting(Thread closer) {
		long deadline = deadlineIn(Duration.ofSeconds(10));
		Thread.State state = closer.getState();
		while (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
			Thread.onSpinWait();
			state = closer.getState();
		}
		return state;
	}

}
