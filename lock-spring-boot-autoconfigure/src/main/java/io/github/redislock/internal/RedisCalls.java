package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

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
 * can be settled;</li>
 * <li>a call that finds the connection down reconnects it at once (see
 * {@link CommandConnection}), and fails, if Redis still cannot be reached at its
 * deadline, saying why (refused, timed out, reset) and where.</li>
 * </ul>
 * Commands go over the client's own connection, in the order they were sent; on a
 * Cluster, Lettuce routes each by its first key. Only where the factory's client cannot
 * open one (a static master/replica setup) do they go over the factory's shared
 * connection (or a pooled one), which reconnects on Lettuce's schedule.
 */
final class RedisCalls {

	private static final Log logger = LogFactory.getLog(RedisCalls.class);

	private final RedisConnectionFactory connectionFactory;

	private final long timeoutNanos;

	private final @Nullable CommandConnection own;

	/** Where Redis is, for messages: "127.0.0.1:6379". */
	private final String where;

	private volatile boolean connected;

	/** Whether the factory hands every caller the same native connection. */
	private final boolean sharesConnection;

	/**
	 * The factory's shared connection, once had: every call would otherwise build a
	 * {@code LettuceConnection} around it (two loggers looked up, a few objects) only to
	 * reach the same native commands.
	 */
	private volatile @Nullable SharedConnection shared;

	RedisCalls(RedisConnectionFactory connectionFactory, long timeoutMillis) {
		this.connectionFactory = connectionFactory;
		this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
		this.sharesConnection = connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
		this.own = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? new CommandConnection(lettuce, Duration.ofMillis(timeoutMillis)) : null;
		this.where = ConnectionFailures.where(connectionFactory);
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
	 * twice (see {@link CommandConnection#resentToTheSameServer}).
	 */
	CompletableFuture<Boolean> resentToTheSameServer(long sentAt) {
		return (this.own != null) ? this.own.resentToTheSameServer(sentAt) : CompletableFuture.completedFuture(false);
	}

	long timeoutMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.timeoutNanos);
	}

	/** No limit of the caller's own: only the command timeout bounds a call. */
	static final long NO_LIMIT = Long.MAX_VALUE;

	/**
	 * Redis' refusals that mean "not now": the command did not run, and will once Redis
	 * is ready (a slot being migrated, a data set being loaded, a script running too
	 * long, a cluster or replica not ready).
	 */
	private static final List<String> TRANSIENT_ERRORS = List.of("TRYAGAIN", "LOADING", "BUSY", "CLUSTERDOWN",
			"MASTERDOWN");

	/**
	 * When a call started now must end: after the command timeout, or after what is left
	 * of the caller's own time, whichever comes first.
	 * @param budgetNanos what is left of the caller's time, or {@link #NO_LIMIT}
	 */
	long deadline(long budgetNanos) {
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
		long deadline = System.nanoTime()
				+ Math.max(0, Math.min(this.timeoutNanos + TimeUnit.MILLISECONDS.toNanos(extraMillis), budgetNanos));
		RedisClusterAsyncCommands<byte[], byte[]> shared = openCommands();
		if (shared != null) {
			return awaitUninterruptibly(what, command.apply(shared).toCompletableFuture(), deadline);
		}
		CommandConnection own = this.own;
		if (own != null && own.isSupported()) {
			RedisClusterAsyncCommands<byte[], byte[]> reopened = reopen(what, own, deadline);
			if (reopened != null) {
				return awaitUninterruptibly(what, command.apply(reopened).toCompletableFuture(), deadline);
			}
		}
		RedisConnection connection = connection(what, deadline);
		try {
			CompletableFuture<T> future = command.apply(nativeCommands(connection)).toCompletableFuture();
			return awaitUninterruptibly(what, future, deadline);
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
		return sharedCommands();
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
					throw notConnected(what, ex.getCause());
				}
				catch (TimeoutException ex) {
					throw notConnected(what, own.lastFailure());
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	// nothing was sent: a known failure, whose message says why no connection was had
	private RedisLockException notConnected(Supplier<String> what, @Nullable Throwable failure) {
		if (failure instanceof IllegalStateException closed
				&& "The lock client is closed".equals(closed.getMessage())) {
			return new RedisLockException("Could not " + what.get() + ": the lock client is closed", closed);
		}
		return ConnectionFailures.notConnected("Could not " + what.get(), this.where, timeoutMillis(), failure);
	}

	// The shared connection stays the same until the factory is reset or stopped, which
	// closes it: then the factory is asked again (and says why it cannot serve, if so).
	// A connection cut by the network is not closed: Lettuce reconnects it.
	private @Nullable RedisClusterAsyncCommands<byte[], byte[]> sharedCommands() {
		SharedConnection shared = this.shared;
		return (shared != null && shared.connection().isOpen()) ? shared.commands() : null;
	}

	private RedisClusterAsyncCommands<byte[], byte[]> remembered(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (this.sharesConnection) {
			StatefulConnection<byte[], byte[]> connection = (commands instanceof RedisAsyncCommands<byte[], byte[]> single)
					? single.getStatefulConnection()
					: (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)
							? cluster.getStatefulConnection() : null;
			if (connection != null) {
				this.shared = new SharedConnection(commands, connection);
			}
		}
		return commands;
	}

	private record SharedConnection(RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<byte[], byte[]> connection) {
	}

	// Once the factory has connected, getConnection() hands out a view of its shared
	// connection without any I/O. The first time, it connects, and Spring Data Redis
	// waits for that with the connection's own timeouts (Lettuce's handshake waits up
	// to its 60 s default on a frozen Redis): so until one has succeeded, connecting is
	// done on a thread of its own and waited for within the deadline.
	private RedisConnection connection(Supplier<String> what, long deadline) {
		CompletableFuture<RedisConnection> connecting = connecting(what);
		try {
			return awaitUninterruptibly(what, connecting.copy(), deadline);
		}
		catch (LockOutcomeUnknownException ex) {
			// nothing was sent: a known failure. A connection made after all is not used.
			connecting.thenAccept(RedisConnection::close);
			throw asKnown(ex);
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
					logger.debug("Could not connect to Redis ahead of the first lock call: " + message(failure));
				}
				if (failure != null && !own.isSupported()) {
					connectAheadShared();
				}
			});
			return;
		}
		connectAheadShared();
	}

	private void connectAheadShared() {
		if (this.connected) {
			return;
		}
		connecting(() -> "connect to Redis ahead of the first lock call").whenComplete((connection, failure) -> {
			if (connection != null) {
				try {
					nativeCommands(connection);
				}
				catch (RuntimeException ex) {
					// not a Lettuce connection: the calls will say so
				}
				finally {
					connection.close();
				}
			}
			else if (failure != null && logger.isDebugEnabled()) {
				logger.debug("Could not connect to Redis ahead of the first lock call: " + message(failure));
			}
		});
	}

	private CompletableFuture<RedisConnection> connecting(Supplier<String> what) {
		if (this.connected) {
			try {
				return CompletableFuture.completedFuture(this.connectionFactory.getConnection());
			}
			catch (RuntimeException ex) {
				return CompletableFuture
					.failedFuture(new RedisLockException("Could not " + what.get() + ": " + message(ex), ex));
			}
		}
		CompletableFuture<RedisConnection> connecting = new CompletableFuture<>();
		Thread connector = new Thread(() -> {
			try {
				connecting.complete(this.connectionFactory.getConnection());
				this.connected = true;
			}
			catch (Throwable ex) {
				connecting.completeExceptionally(ex);
			}
		}, "redis-lock-connect");
		connector.setDaemon(true);
		connector.start();
		return connecting;
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
				Throwable cause = unwrap(failure);
				return CompletableFuture.<T>failedFuture(
						notConnected(what, (cause instanceof TimeoutException) ? own.lastFailure() : cause));
			}).thenCompose((next) -> next);
		}
		return callAsyncShared(what, timeout, deadline, command);
	}

	private <T> CompletableFuture<T> send(Supplier<String> what, RedisClusterAsyncCommands<byte[], byte[]> commands,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command, long deadline) {
		CompletableFuture<T> reply;
		try {
			reply = command.apply(commands).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(what, ex));
		}
		return within(what, reply, deadline);
	}

	private <T> CompletableFuture<T> callAsyncShared(Supplier<String> what, long timeout, long deadline,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, ? extends CompletionStage<T>> command) {
		CompletableFuture<RedisConnection> connecting = connecting(what);
		return connecting.copy().orTimeout(timeout, TimeUnit.NANOSECONDS).handle((connection, failure) -> {
			if (failure != null) {
				// nothing was sent: a known failure
				connecting.thenAccept(RedisConnection::close);
				RuntimeException translated = translate(what, failure);
				return CompletableFuture.<T>failedFuture(
						(translated instanceof LockOutcomeUnknownException unknown) ? asKnown(unknown) : translated);
			}
			CompletableFuture<T> reply;
			try {
				reply = command.apply(nativeCommands(connection)).toCompletableFuture();
			}
			catch (RuntimeException ex) {
				connection.close();
				return CompletableFuture.<T>failedFuture(translate(what, ex));
			}
			reply.whenComplete((result, ignored) -> connection.close());
			return reply.copy()
				.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
				.handle((result, replyFailure) -> {
					if (replyFailure != null) {
						throw translate(what, replyFailure);
					}
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

	/**
	 * What {@link #await} answers, as a future: the stage's result, or by the deadline
	 * the same failure.
	 */
	<T> CompletableFuture<T> within(String what, CompletionStage<T> command, long deadline) {
		return within(() -> what, command, deadline);
	}

	private <T> CompletableFuture<T> within(Supplier<String> what, CompletionStage<T> command, long deadline) {
		return command.toCompletableFuture()
			.copy()
			.orTimeout(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
			.handle((result, failure) -> {
				if (failure != null) {
					throw translate(what, failure);
				}
				return result;
			});
	}

	/**
	 * Runs a script by its SHA1, loading it with EVAL when Redis does not have it (after
	 * a restart, a failover or SCRIPT FLUSH). The script is one of {@link LockScripts}'s,
	 * whose SHA1 is read without a lock.
	 */
	static <T> CompletionStage<T> script(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, List<String> keys, String... args) {
		byte[][] keyBytes = new byte[keys.size()][];
		for (int i = 0; i < keyBytes.length; i++) {
			keyBytes[i] = bytes(keys.get(i));
		}
		byte[][] argBytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			argBytes[i] = bytes(args[i]);
		}
		return script(redis, script, type, keyBytes, argBytes);
	}

	/**
	 * Runs a script as
	 * {@link #script(RedisClusterAsyncCommands, RedisScript, ScriptOutputType, List, String...)}
	 * does, with its keys and arguments encoded already: the hot path's, whose keys
	 * ({@link LockKeys}) and most arguments ({@link Owner}, {@link Lease}, {@link #number
	 * small numbers}) keep their bytes. Nothing here or in Lettuce changes the arrays.
	 */
	static <T> CompletionStage<T> script(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, byte[][] keys, byte[]... args) {
		// one stage on the way of every reply, whatever it is
		CompletionStage<T> bySha = redis.evalsha(script.getSha1(), type, keys, args);
		return bySha.exceptionallyCompose((ex) -> {
			if (unwrap(ex) instanceof RedisNoScriptException) {
				CompletionStage<T> byText = redis.eval(script.getScriptAsString(), type, keys, args);
				return byText.exceptionallyCompose(
						(failure) -> CompletableFuture.failedFuture(namingRefusedCommand(script, failure)));
			}
			return CompletableFuture.failedFuture(namingRefusedCommand(script, ex));
		});
	}

	/**
	 * Runs a script that publishes, given its keys followed by its channels: the channels
	 * go to the end of the arguments, not into the keys. A channel is never a key, and
	 * while a Redis Cluster slot migrates, a script that declares keys of which some
	 * exist and some do not is refused with {@code TRYAGAIN}: declared channels would
	 * refuse every release for the whole migration. (The hot path's scripts take
	 * {@link LockKeys#channelBytes()} as their last argument directly.)
	 * @param channels how many of the last {@code keysAndChannels} are channels
	 */
	static <T> CompletionStage<T> publishing(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisScript<?> script,
			ScriptOutputType type, List<String> keysAndChannels, int channels, String... args) {
		int keys = keysAndChannels.size() - channels;
		List<String> all = new ArrayList<>(List.of(args));
		all.addAll(keysAndChannels.subList(keys, keysAndChannels.size()));
		return script(redis, script, type, keysAndChannels.subList(0, keys), all.toArray(String[]::new));
	}

	// hold counts, token counts, flags and short times: encoded once
	private static final byte[][] SMALL_NUMBERS = new byte[256][];

	static {
		for (int i = 0; i < SMALL_NUMBERS.length; i++) {
			SMALL_NUMBERS[i] = bytes(Integer.toString(i));
		}
	}

	/** A number as a script argument: its decimal digits. */
	static byte[] number(long value) {
		return (value >= 0 && value < SMALL_NUMBERS.length) ? SMALL_NUMBERS[(int) value] : bytes(Long.toString(value));
	}

	// Redis names neither command when a script's call fails for it: 7.0 refuses one the
	// user's ACL denies with "The user executing the script can't run this command or
	// subcommand script: <sha>, on @user_script:<line>", and 6.2 one it does not know
	// with "@user_script:<line>: ... Unknown Redis command called from Lua script". The
	// script's line says which command, and what to do about it.
	private static Throwable namingRefusedCommand(RedisScript<?> script, Throwable failure) {
		Throwable cause = unwrap(failure);
		String message = (cause instanceof RedisCommandExecutionException) ? cause.getMessage() : null;
		if (message == null) {
			return failure;
		}
		Matcher denied = DENIED_IN_SCRIPT.matcher(message);
		Matcher unknown = UNKNOWN_IN_SCRIPT.matcher(message);
		boolean isDenied = denied.find();
		if (!isDenied && !unknown.find()) {
			return failure;
		}
		String[] lines = script.getScriptAsString().split("\n");
		int line = Integer.parseInt(isDenied ? denied.group(1) : unknown.group(1));
		Matcher call = (line >= 1 && line <= lines.length) ? SCRIPT_CALL.matcher(lines[line - 1]) : null;
		if (call == null || !call.find()) {
			return failure;
		}
		RedisCommandExecutionException named;
		if (isDenied) {
			// a publish names both commands: the line does not say which one the flag
			// chose
			String command = (call.group(1) != null) ? "'" + call.group(1) + "' or '" + call.group(2) + "'"
					: "'" + call.group(2) + "'";
			// no cause: messages are taken from the most specific one
			named = new RedisCommandExecutionException("NOPERM this connection's Redis user may not run " + command
					+ ", which the lock script calls (grant it: the README's \"Redis ACL\" section lists every "
					+ "command, key and channel the library needs)");
		}
		else if (call.group(1) != null) {
			// the only command a Redis from 4.0 on may not know: the sharded publish
			named = new RedisCommandExecutionException("ERR this Redis does not know '" + call.group(1)
					+ "' (sharded pub/sub, Redis 7 and later), which the lock script calls after its writes; Redis "
					+ "keeps what a script wrote before an error, so its change stands (a release has freed the "
					+ "lock), but the waiters in other applications were not told and wait until they ask again. "
					+ "Set redis-lock.sharded-pub-sub to auto (the default: sharded only where every master has "
					+ "it) or never");
		}
		else {
			named = new RedisCommandExecutionException(
					"ERR this Redis does not know '" + call.group(2) + "', which the lock script calls");
		}
		named.addSuppressed(cause);
		return named;
	}

	private static final Pattern DENIED_IN_SCRIPT = Pattern
		.compile("can't run this command or subcommand script: \\w+, on @user_script:(\\d+)");

	private static final Pattern UNKNOWN_IN_SCRIPT = Pattern
		.compile("@user_script:(\\d+):.*Unknown Redis command called from Lua script");

	// redis.call('hset', ...), or redis.call(ARGV[2] == '1' and 'spublish' or 'publish',
	// ...)
	private static final Pattern SCRIPT_CALL = Pattern
		.compile("redis\\.p?call\\((?:ARGV\\[\\d+\\] == '1' and '(\\w+)' or )?'(\\w+)'");

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Whether Redis refused the command for now ({@code TRYAGAIN} while the lock's
	 * cluster slot is being migrated, {@code LOADING} after a restart with persistence,
	 * {@code BUSY}, {@code CLUSTERDOWN}, {@code MASTERDOWN}): it did not run, and will
	 * once Redis is ready.
	 */
	static boolean isTransientRefusal(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (cause instanceof RedisCommandExecutionException && message != null
					&& TRANSIENT_ERRORS.stream().anyMatch(message::startsWith)) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked")
	private RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(RedisConnection connection) {
		// LettuceConnection and LettuceClusterConnection: the shared (or pooled)
		// connection's asynchronous API; for a cluster, Lettuce's routing one
		return remembered((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection());
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
				catch (TimeoutException | ExecutionException | CancellationException ex) {
					future.cancel(false);
					throw translate(what, ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	// a timeout or a failed connection: unknown whether Redis ran it; an error reply:
	// it did not
	private RuntimeException translate(Supplier<String> what, Throwable failure) {
		Throwable cause = unwrap(failure);
		// Lettuce's own expiry of the command is set to the same timeout: whichever of
		// the two fires first, the caller reads the same
		if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
			// the connection lost while the call waited says more than the wait's end
			String lost = (this.own != null) ? this.own.lostSince(System.nanoTime() - this.timeoutNanos) : null;
			return new LockOutcomeUnknownException("Could not " + what.get() + ": Redis at " + this.where
					+ " did not answer within " + Durations.formatMillis(timeoutMillis())
					+ ((lost != null) ? ", the connection was lost meanwhile (" + lost + ")" : "")
					+ " (see redis-lock.command-timeout); it may or may not have run the command", cause);
		}
		if (cause instanceof RedisLockException known) {
			return known;
		}
		if (cause instanceof RedisCommandExecutionException || cause instanceof Refused) {
			// Redis answered with an error: the command did not run
			return new RedisLockException("Could not " + what.get() + ": " + message(cause), cause);
		}
		return new LockOutcomeUnknownException(
				"Could not " + what.get() + ": " + ConnectionFailures.lost(this.where, cause, message(cause)), cause);
	}

	/** The same failure, for a command known not to have been sent. */
	private static RedisLockException asKnown(LockOutcomeUnknownException unknown) {
		Throwable cause = unknown.getCause();
		return new RedisLockException(String.valueOf(unknown.getMessage()), (cause != null) ? cause : unknown);
	}

	static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static String message(Throwable ex) {
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
		String message = (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName();
		// the socket error ("Connection refused") does not say where; Lettuce's exception
		// around it does ("Unable to connect to host:port")
		for (Throwable outer = ex; outer != null && outer != cause; outer = outer.getCause()) {
			if (outer instanceof RedisConnectionException connection && connection.getMessage() != null
					&& !message.contains(connection.getMessage())) {
				// an InetSocketAddress made from a name prints "host/<unresolved>:port"
				return connection.getMessage().replace("/<unresolved>", "") + ": " + message;
			}
		}
		return message;
	}

	/**
	 * A refusal decided on the client side after Redis answered, such as too few replicas
	 * acknowledging: a known outcome.
	 */
	static final class Refused extends RuntimeException {

		Refused(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

}
