package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockOutcomeUnknownException;
import io.github.redislock.RedisLockException;

/**
 * Says what a failed call means, for {@link RedisCalls}: an answer that did not come in
 * time, or a connection lost after the command may have been sent, is
 * {@link LockOutcomeUnknownException} (Redis may have run it); an error reply, a
 * {@link Refused refusal} decided on the client side, or no connection at all is
 * {@link RedisLockException} (it did not run). Also tells a refusal for now
 * ({@link #isTransientRefusal}) from one for good, and rewords Redis' refusal of a
 * command a lock script calls to name that command.
 */
final class RedisFailures {

	/**
	 * Redis' refusals that mean "not now": the command did not run, and will once Redis
	 * is ready (a slot being migrated, a data set being loaded, a script running too
	 * long, a cluster or replica not ready).
	 */
	private static final List<String> TRANSIENT_ERRORS = List.of("TRYAGAIN", "LOADING", "BUSY", "CLUSTERDOWN",
			"MASTERDOWN");

	/** Where Redis is, for messages: "127.0.0.1:6379". */
	private final String where;

	private final long timeoutNanos;

	private final @Nullable CommandConnection own;

	private final RedisAvailability availability;

	/**
	 * @param where where Redis is, for messages
	 * @param timeoutNanos the command timeout
	 * @param own the client's own connection, which says whether it was lost during a
	 * call that timed out
	 */
	RedisFailures(String where, long timeoutNanos, @Nullable CommandConnection own) {
		this.where = where;
		this.timeoutNanos = timeoutNanos;
		this.own = own;
		this.availability = new RedisAvailability(where);
	}

	/** What this client tells the user of Redis being lost, refusing and back. */
	RedisAvailability availability() {
		return this.availability;
	}

	// the translated failure, told to the user once per incident (see RedisAvailability)
	RuntimeException translate(Supplier<String> what, Throwable failure) {
		RuntimeException translated = classify(what, failure);
		Throwable cause = unwrap(failure);
		if (cause instanceof RedisCommandExecutionException || cause instanceof Refused) {
			if (!isTransientRefusal(cause) && !(cause instanceof Refused)) {
				this.availability.refused(message(cause), String.valueOf(translated.getMessage()));
			}
			else {
				this.availability.answered(System.nanoTime());
			}
		}
		else if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
			// sent at least a timeout ago
			this.availability.unreachable(
					"no answer within " + Durations.formatMillis(timeoutMillis()) + " (redis-lock.command-timeout)",
					System.nanoTime() - this.timeoutNanos);
		}
		else if (!(cause instanceof RedisLockException)) {
			this.availability.unreachable(message(cause), System.nanoTime());
		}
		return translated;
	}

	private long timeoutMillis() {
		return TimeUnit.NANOSECONDS.toMillis(this.timeoutNanos);
	}

	// a timeout or a failed connection: unknown whether Redis ran it; an error reply:
	// it did not
	private RuntimeException classify(Supplier<String> what, Throwable failure) {
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

	// nothing was sent: a known failure, whose message says why no connection was had
	RedisLockException notConnected(Supplier<String> what, @Nullable Throwable failure) {
		if (failure instanceof ClientClosedException closed) {
			return new RedisLockException("Could not " + what.get() + ": the lock client is closed", closed);
		}
		RedisLockException notConnected = ConnectionFailures.notConnected("Could not " + what.get(), this.where,
				timeoutMillis(), failure);
		// nothing was sent: a failure of now
		this.availability.unreachable((failure != null) ? message(failure)
				: "no connection within " + Durations.formatMillis(timeoutMillis()), System.nanoTime());
		return notConnected;
	}

	/** The same failure, for a command known not to have been sent. */
	static RedisLockException asKnown(LockOutcomeUnknownException unknown) {
		Throwable cause = unknown.getCause();
		return new RedisLockException(String.valueOf(unknown.getMessage()), (cause != null) ? cause : unknown);
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

	static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof ExecutionException || cause instanceof java.util.concurrent.CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	static String message(Throwable ex) {
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

	// Redis names neither command when a script's call fails for it: 7.0 refuses one the
	// user's ACL denies with "The user executing the script can't run this command or
	// subcommand script: <sha>, on @user_script:<line>", and 6.2 one it does not know
	// with "@user_script:<line>: ... Unknown Redis command called from Lua script". The
	// script's line says which command, and what to do about it.
	static Throwable namingRefusedCommand(RedisScript<?> script, Throwable failure) {
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

	// redis.call('hset', ...), or the prelude's publish: redis.call(sharded == '1' and
	// 'spublish' or 'publish', ...) (the line numbers Redis reports count the prelude's)
	private static final Pattern SCRIPT_CALL = Pattern
		.compile("redis\\.p?call\\((?:\\w+ == '1' and '(\\w+)' or )?'(\\w+)'");

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
