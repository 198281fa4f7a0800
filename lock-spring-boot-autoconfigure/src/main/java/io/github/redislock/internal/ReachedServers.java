package io.github.redislock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The server instances ({@code run_id}) the command connection reached, and when: newest
 * first, a few kept. Tells whether a command Lettuce sent again after a reconnect went to
 * the instance that may have run it already (see {@link #resentToTheSameServer}). Split
 * from {@link CommandConnection}, which keeps the connection up; this class only
 * remembers where it went.
 */
final class ReachedServers {

	private static final int REACHED_KEPT = 8;

	private static final CompletableFuture<Boolean> NOT_RESENT = CompletableFuture.completedFuture(false);

	// guarded by itself
	private final Deque<Reached> reached = new ArrayDeque<>();

	// the connection's commands if it is up: to ask INFO again after a reconnect whose
	// INFO got no answer
	private final Supplier<@Nullable RedisClusterAsyncCommands<byte[], byte[]>> commandsIfOpen;

	ReachedServers(Supplier<@Nullable RedisClusterAsyncCommands<byte[], byte[]>> commandsIfOpen) {
		this.commandsIfOpen = commandsIfOpen;
	}

	/**
	 * Whether a command sent at the given time, on a connection that has gone down since,
	 * was answered by the same server instance it was first sent to. Completes
	 * {@code false} when the instance changed, and when it cannot be told (no
	 * {@code INFO} allowed by the user's ACL, no answer before or after, no reconnect
	 * recorded since, more reconnects than are kept).
	 * @param sentAt a {@link System#nanoTime()} from before the command was sent
	 */
	CompletableFuture<Boolean> resentToTheSameServer(long sentAt) {
		List<Reached> before = new ArrayList<>();
		Reached now;
		synchronized (this.reached) {
			now = this.reached.peekFirst();
			for (Reached each : this.reached) {
				if (each.at() - sentAt <= 0) {
					before.add(each);
				}
			}
		}
		if (before.isEmpty() || now == null || before.get(0) == now) {
			return NOT_RESENT;
		}
		CompletableFuture<@Nullable String> after = now.server()
			.thenCompose((id) -> (id != null) ? CompletableFuture.completedFuture(id) : askAgain());
		return firstKnown(before, 0).thenCombine(after, (then, id) -> then != null && then.equals(id));
	}

	/** The connection reached a server just now: asks, without waiting, which one. */
	void reached(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		CompletableFuture<@Nullable String> server = serverOf(commands);
		synchronized (this.reached) {
			this.reached.addFirst(new Reached(System.nanoTime(), server));
			while (this.reached.size() > REACHED_KEPT) {
				this.reached.removeLast();
			}
		}
	}

	// The instance the connection reached when the command was sent: the newest known
	// one before then. Connections cut again and again may have lost an answer to INFO;
	// an instance known earlier is the same one if it answers after, since a restart
	// makes a new run_id.
	private static CompletableFuture<@Nullable String> firstKnown(List<Reached> reached, int from) {
		if (from == reached.size()) {
			return CompletableFuture.completedFuture(null);
		}
		return reached.get(from)
			.server()
			.thenCompose((id) -> (id != null) ? CompletableFuture.completedFuture(id) : firstKnown(reached, from + 1));
	}

	// the connection's INFO after its last reconnect got no answer: asked once more
	private CompletableFuture<@Nullable String> askAgain() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.commandsIfOpen.get();
		return (commands != null) ? serverOf(commands) : CompletableFuture.completedFuture(null);
	}

	private static CompletableFuture<@Nullable String> serverOf(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		return commands.info("server")
			.toCompletableFuture()
			.handle((info, failure) -> (failure == null) ? runId(info) : null);
	}

	private static @Nullable String runId(@Nullable String info) {
		if (info != null) {
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("run_id:")) {
					return line.substring("run_id:".length()).trim();
				}
			}
		}
		return null;
	}

	/**
	 * A connection reached a server at a time ({@link System#nanoTime()}): its run_id,
	 * once told.
	 */
	private record Reached(long at, CompletableFuture<@Nullable String> server) {
	}

}
