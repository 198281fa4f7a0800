package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockOutcomeUnknownException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link RedisCalls} answers for a command already sent, once its deadline has
 * passed: the reply if it came, else {@link LockOutcomeUnknownException}, exactly one of
 * the two; interrupts change neither, and stay set. Its races, the reply arriving as the
 * time runs out and an interrupt at that moment, are model-checked by
 * {@link RedisCallsLincheckTests}.
 */
class RedisCallsDeadlineTests {

	private static final String WHAT = "acquire lock 'a' (key 'lock:{a}')";

	private final RedisCalls calls = new RedisCalls(RedisCallsLincheckTests.noConnections(), 1000);

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void aReplyThatCameByTheDeadlineIsTheAnswerAfterItToo() {
		CompletableFuture<String> reply = CompletableFuture.completedFuture("granted");
		long passed = System.nanoTime() - 1;
		assertThat(this.calls.within(WHAT, reply, passed).join()).isEqualTo("granted");
		assertThat(this.calls.await(WHAT, reply, passed)).isEqualTo("granted");
	}

	@Test
	void noReplyByTheDeadlineIsAnUnknownOutcomeWhateverComesAfter() {
		CompletableFuture<String> reply = new CompletableFuture<>();
		CompletableFuture<String> bounded = this.calls.within(WHAT, reply, System.nanoTime() - 1);
		assertThatThrownBy(bounded::join).isInstanceOf(CompletionException.class)
			.hasCauseInstanceOf(LockOutcomeUnknownException.class);
		reply.complete("granted");
		assertThat(bounded.isCompletedExceptionally()).isTrue();
	}

	@Test
	void aCallWhoseReplyDidNotComeCancelsTheCommand() {
		CompletableFuture<String> reply = new CompletableFuture<>();
		assertThatThrownBy(() -> this.calls.await(WHAT, reply, System.nanoTime() - 1))
			.isInstanceOf(LockOutcomeUnknownException.class)
			.hasMessageContaining("it may or may not have run the command");
		assertThat(reply.isCancelled()).isTrue();
		assertThat(reply.complete("granted")).isFalse();
	}

	@Test
	void anInterruptedCallerGetsTheReplyThatCameAndKeepsItsInterrupt() {
		Thread.currentThread().interrupt();
		assertThat(this.calls.await(WHAT, CompletableFuture.completedFuture("granted"), System.nanoTime() - 1))
			.isEqualTo("granted");
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
	}

	@Test
	void anInterruptedCallerWhoseReplyDidNotComeKeepsItsInterrupt() {
		Thread.currentThread().interrupt();
		assertThatThrownBy(() -> this.calls.await(WHAT, new CompletableFuture<String>(), System.nanoTime() - 1))
			.isInstanceOf(LockOutcomeUnknownException.class);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
	}

}
