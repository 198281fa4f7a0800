package io.github.redislock.internal;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOutcomeUnknownException;
import io.github.redislock.RedisLockException;

/**
 * Runs the engine's commands on Lettuce's asynchronous API and waits for each one itself,
 * so that:
 * <ul>
 * <li>no call waits longer than the lock command timeout, whatever the connection
 * factory's own timeout (Lettuce's default is 60 s);</li>
 * <li>an interrupt never abandons a command Redis will still run: the caller keeps
 * waiting for the answer (at most the timeout) and gets its interrupt status back;</li>
 * <li>a call whose answer did not come is told apart from one Redis refused:
 * {@link LockOutcomeUnknownException}, so that an acquisition that may have been granted
 * can be settled; a call whose answer came just as its time ran out returns that
 * answer;</li>
 * <li>a call that finds the connection down reconnects it at once (see
 * {@link CommandConnection}), and fails, if Redis still cannot be reached at its
 * deadline, saying why (refused, timed out, reset) and where.</li>
 * </ul>
 * Commands go over the client's own connection, in the order they were sent; on a
 * Cluster, Lettuce routes each by its first key. Only where the factory's client cannot
 * open one (a static master/replica setup) do they go over the factory's shared
 * connection (or a pooled one), which reconnects on Lettuce's schedule (see
 * {@link FactoryConnections}). What a failure means is {@link RedisFailures}'s to say;
 * {@link ScriptCalls} encodes the scripts the commands run.
 */
final class RedisCalls implements CallDeadlines {

	private static final Log logger = LogFactory.getLog(RedisCalls.class);

	private final long timeoutNanos;

	private final @Nullable CommandConnection own;

	/** The factory's connections, where the client cannot open one of its own. */
	private final FactoryConnections factory;

	private final RedisFailures failures;

	private final RedisAvailability availability;

	RedisCalls(RedisConnectionFactory connectionFactory, long timeoutMillis) {
		this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
		this.factory = new FactoryConnections(connectionFactory);
		this.own = (connectionFactory instanceof LettuceConnectionFactory lettuce) ? new CommandConnection(lettuce)
				: null;
		this.failures = new RedisFailures(ConnectionFailures.where(connectionFactory), this.timeoutNanos, this.own);
		this.availability = this.failures.availability();
	}

	/** What this client tells the user of Redis being lost, refusing and back. */
	RedisAvailability availability() {
		return this.availability;
	}

	/** Closes the client's own connection. */
	void close() {
		if (this.own != null) {
			this.own.close();
		}
	}

	/**
	 * Whether a command sent at the given time ({@link System#nanoTime()}) was sent
	 * again, after its connection was lost, to the same server instance: it may have run
	 * twice (see {@link CommandConnection#resentToTheSameServer}). Within the command
	 * timeout, as every call: telling may take an {@code INFO} on the client's own
	 * connection, which has no timeout of Lettuce's.
	 * @param what what the command did, for messages: "release lock 'a' (key 'lock:{a}')"
	 */
	CompletableFuture<Boolean> resentToTheSameServer(String what, long sentAt) {
		CommandConnection own = this.own;
		return (own != null) ? within(what, own.resentToTheSameServer(sentAt), deadline(NO_LIMIT))
				: CompletableFuture.completedFuture(false);
	}

	long timeoutMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.timeoutNanos);
	}

	/** No limit of the caller's own: only the command timeout bounds a call. */
	static final long NO_LIMIT = Long.MAX_VALUE;

	@Override
	public long deadline(long budgetNanos) {
		return System.nanoTime() + Math.max(0, Math.min(this.timeoutNanos, budgetNanos));
	}

	/**
	 * Sends the command and waits for its answer, at most the command timeout plus
	 * {@code extraMillis} (for a command that itself waits, such as {@code WAIT}), and at
	 * most {@code budgetNanos}.
	 * @param what what the call does, for messages: "acquire lock 'a' (key 'lock:{a}')";
	 * asked for only when the call fails
	 * @throws LockOutcomeUnknownException when no answer came in time or the connection
	 * failed after the command may have been sent
	 * @throws RedisLockException when Redis refused the command, or no connection could
	 * be had
	 */
	<T> T call(Supplier<String> what, long extraMillis, long budgetNanos,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command) {
		long sentAt = System.nanoTime();
		long deadline = sentAt
				+ Math.max(0, Math.min(this.timeoutNanos + TimeUnit.MILLISECONDS.toNanos(extraMillis), budgetNanos));
		RedisClusterAsyncCommands<byte[], byte[]> shared = openCommands();
		if (shared != null) {
			return answered(sentAt, awaitUninterruptibly(what, command.apply(shared).toCompletableFuture(), deadline));
		}
		CommandConnection own = this.own;
		if (own != null && own.isSupported()) {
			RedisClusterAsyncCommands<byte[], byte[]> reopened = reopen(what, own, deadline);
			if (reopened != null) {
				return answered(sentAt,
						awaitUninterruptibly(what, command.apply(reopened).toCompletableFuture(), deadline));
			}
		}
		RedisConnection connection = connection(what, deadline);
		try {
			CompletableFuture<T> future = command.apply(this.factory.nativeCommands(connection)).toCompletableFuture();
			return answered(sentAt, awaitUninterruptibly(what, future, deadline));
		}
		finally {
			connection.close();
		}
	}

	// the client's own connection if it is up; otherwise, where the client cannot have
	// one, the factory's shared one if it is open
	private @Nullable RedisClusterAsyncCommands<byte[], byte[]> openCommands() {
		CommandConnection own = this.own;
		if (own != null && own.isSupported()) {
			return own.commandsIfOpen();
		}
		return this.factory.sharedCommands();
	}

	/**
	 * Waits, within the deadline, for the client's own connection to be up again.
	 * @return its commands, or {@code null} when the client turned out unable to open a
	 * connection of its own (the factory's is used then)
	 * @throws RedisLockException when no connection could be had in time: a known
	 * failure, nothing was sent
	 */
	private @Nullable RedisClusterAsyncCommands<byte[], byte[]> reopen(Supplier<String> what, CommandConnection own,
			long deadline) {
		CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening = own.open(deadline);
		boolean interrupted = false;
		try {
			for (;;) {
				try {
					return opening.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					// nothing is sent yet, but the caller's bound is the deadline either
					// way
					interrupted = true;
				}
				catch (ExecutionException ex) {
					if (!own.isSupported()) {
						return null;
					}
					throw this.failures.notConnected(what, ex.getCause());
				}
				catch (TimeoutException ex) {
					throw this.failures.notConnected(what, own.lastFailure());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	// the factory's connection, connected the first time on a thread of its own (see
	// FactoryConnections#connecting) and waited for within the deadline
	private RedisConnection connection(Supplier<String> what, long deadline) {
		CompletableFuture<RedisConnection> connecting = this.factory.connecting(what);
		try {
			return awaitUninterruptibly(what, connecting.copy(), deadline);
		}
		catch (LockOutcomeUnknownException ex) {
			// nothing was sent: a known failure. A connection made after all is not used.
			connecting.thenAccept(RedisConnection::close);
			throw RedisFailures.asKnown(ex);
		}
	}

	/**
	 * Connects in the background, so that the first lock call finds the connection made:
	 * a cold JVM connecting (over TLS, or on a throttled CPU) can take longer than the
	 * command timeout, which would fail that call although Redis is fine. A failure is
	 * only logged at DEBUG: calls connect again, and say what is wrong, as they always
	 * do.
	 */
	void connectAhead() {
		CommandConnection own = this.own;
		if (own != null) {
			// one attempt: the calls try again, and say what is wrong
			own.open(System.nanoTime()).whenComplete((commands, failure) -> {
				if (failure != null && logger.isDebugEnabled()) {
					logger.debug("Could not connect to Redis ahead of the first lock call: "
							+ RedisFailures.message(failure));
				}
				if (failure != null && !own.isSupported()) {
					this.factory.connectAhead();
				}
			});
			return;
		}
		this.factory.connectAhead();
	}

	/**
	 * Sends the command and completes with its answer, as
	 * {@link #call(Supplier, long, long, Function)} returns it, without any thread
	 * waiting: the same time limits, the same exceptions (as the future's failure).
	 */
	<T> CompletableFuture<T> callAsync(Supplier<String> what, long extraMillis, long budgetNanos,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command) {
		long timeout = Math.max(0,
				Math.min(this.timeoutNanos + TimeUnit.MILLISECONDS.toNanos(extraMillis), budgetNanos));
		long deadline = System.nanoTime() + timeout;
		RedisClusterAsyncCommands<byte[], byte[]> shared = openCommands();
		if (shared != null) {
			return send(what, shared, command, deadline);
		}
		CommandConnection own = this.own;
		if (own != null && own.isSupported()) {
			return own.open(deadline).copy().orTimeout(timeout, TimeUnit.NANOSECONDS).handle((commands, failure) -> {
				if (failure == null) {
					return send(what, commands, command, deadline);
				}
				if (!own.isSupported()) {
					return callAsyncShared(what, timeout, deadline, command);
				}
				Throwable cause = RedisFailures.unwrap(failure);
				return CompletableFuture.<T>failedFuture(this.failures.notConnected(what,
						(cause instanceof TimeoutException) ? own.lastFailure() : cause));
			}).thenCompose((next) -> next);
		}
		return callAsyncShared(what, timeout, deadline, command);
	}

	private <T> CompletableFuture<T> send(Supplier<String> what, RedisClusterAsyncCommands<byte[], byte[]> commands,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command, long deadline) {
		CompletableFuture<T> reply;
		long sentAt = System.nanoTime();
		try {
			reply = command.apply(commands).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(this.failures.translate(what, ex));
		}
		return replyWithin(what, reply, sentAt, deadline);
	}

	private <T> CompletableFuture<T> callAsyncShared(Supplier<String> what, long timeout, long deadline,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command) {
		CompletableFuture<RedisConnection> connecting = this.factory.connecting(what);
		return connecting.copy().orTimeout(timeout, TimeUnit.NANOSECONDS).handle((connection, failure) -> {
			if (failure != null) {
				// nothing was sent: a known failure
				connecting.thenAccept(RedisConnection::close);
				RuntimeException translated = this.failures.translate(what, failure);
				return CompletableFuture.<T>failedFuture((translated instanceof LockOutcomeUnknownException unknown)
						? RedisFailures.asKnown(unknown) : translated);
			}
			CompletableFuture<T> reply;
			try {
				reply = command.apply(this.factory.nativeCommands(connection)).toCompletableFuture();
			}
			catch (RuntimeException ex) {
				connection.close();
				return CompletableFuture.<T>failedFuture(this.failures.translate(what, ex));
			}
			reply.whenComplete((result, ignored) -> connection.close());
			return reply.copy()
				.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
				.handle((result, replyFailure) -> {
					if (replyFailure != null) {
						throw this.failures.translate(what, replyFailure);
					}
					this.availability.answered(deadline - timeout);
					return result;
				});
		}).thenCompose((next) -> next);
	}

	<T> T call(Supplier<String> what,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command) {
		return call(what, 0, NO_LIMIT, command);
	}

	/**
	 * Waits for a command already sent, until the given {@link #deadline}, as
	 * {@link #call(Supplier, Function)} does.
	 */
	<T> T await(String what, CompletionStage<T> command, long deadline) {
		return awaitUninterruptibly(() -> what, command.toCompletableFuture(), deadline);
	}

	// a reply to a command sent at sentAt, or later, came: Redis is reachable (see
	// RedisAvailability)
	private <T> T answered(long sentAt, T reply) {
		this.availability.answered(sentAt);
		return reply;
	}

	/**
	 * What {@link #await} answers, as a future: the stage's result, or by the deadline
	 * the same failure.
	 */
	@Override
	public <T> CompletableFuture<T> within(String what, CompletionStage<T> command, long deadline) {
		return within(() -> what, command, deadline);
	}

	private <T> CompletableFuture<T> within(Supplier<String> what, CompletionStage<T> command, long deadline) {
		return command.toCompletableFuture()
			.copy()
			.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
			.handle((result, failure) -> {
				if (failure != null) {
					throw this.failures.translate(what, failure);
				}
				return result;
			});
	}

	// within(), for a reply to a command this class sent at sentAt: a reply tells that
	// Redis is reachable (a stage within() waits for may be no reply, such as a
	// subscription made long ago)
	private <T> CompletableFuture<T> replyWithin(Supplier<String> what, CompletionStage<T> reply, long sentAt,
			long deadline) {
		return reply.toCompletableFuture()
			.copy()
			.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
			.handle((result, failure) -> {
				if (failure != null) {
					throw this.failures.translate(what, failure);
				}
				this.availability.answered(sentAt);
				return result;
			});
	}

	private <T> T awaitUninterruptibly(Supplier<String> what, CompletableFuture<T> future, long deadline) {
		boolean interrupted = false;
		try {
			for (;;) {
				try {
					return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					// Redis runs the command anyway: wait for what it did
					interrupted = true;
				}
				catch (TimeoutException ex) {
					if (future.cancel(false)) {
						throw this.failures.translate(what, ex);
					}
					// the answer came as the time ran out: it is the answer (the next get
					// returns it at once), not an unknown outcome
				}
				catch (ExecutionException | CancellationException ex) {
					future.cancel(false);
					throw this.failures.translate(what, ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
