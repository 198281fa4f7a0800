package io.github.redislock;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder frozen past its lease (a child JVM stopped with SIGSTOP, its watchdog frozen
 * too, as in a long GC pause): another client takes over with a larger fencing token; the
 * frozen one, once resumed, learns it lost the lock, and a store that checks fencing
 * tokens rejects its stale write, where a store that does not loses the newer holder's
 * update.
 */
class PausedHolderTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void aFencedStoreRejectsTheWriteOfAHolderThatWasPausedPastItsLease() throws Exception {
		Outcome outcome = pauseHolderAndTakeOver(true);
		assertThat(outcome.newToken()).isGreaterThan(outcome.pausedToken());
		assertThat(outcome.pausedWriteAccepted()).isFalse();
		assertThat(outcome.finalValue()).isEqualTo("written by the new holder");
		assertThat(outcome.pausedStillHeld()).isFalse();
		assertThat(outcome.unlockReport()).startsWith("EXPIRED ").contains("watchdog lease of 1.5s was not renewed");
		assertThat(outcome.output()).anyMatch((line) -> line.startsWith("LOST "));
	}

	@Test
	void anUnfencedStoreLetsThePausedHolderOverwriteTheNewerUpdate() throws Exception {
		Outcome outcome = pauseHolderAndTakeOver(false);
		assertThat(outcome.pausedWriteAccepted()).isTrue();
		assertThat(outcome.finalValue()).isEqualTo("written by the paused holder");
	}

	private Outcome pauseHolderAndTakeOver(boolean fenced) throws Exception {
		String name = LockTestClients.uniqueName();
		String storeKey = "store:" + name;
		Process holder = new ProcessBuilder(WorkerJvm.command(PausedHolderWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, storeKey, Boolean.toString(fenced)))
			.redirectErrorStream(true)
			.start();
		List<String> seen = new ArrayList<>();
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
				PrintWriter input = new PrintWriter(holder.getOutputStream(), true, StandardCharsets.UTF_8)) {
			long pausedToken = Long.parseLong(readUntil(output, seen, "HELD ").substring(5));
			signal(holder, "STOP");
			RedisLock newHolder = this.clients.newClient().getLock(name);
			// the paused holder's watchdog cannot renew: its lease runs out
			assertThat(newHolder.tryLock(Duration.ofSeconds(10), null)).isTrue();
			long newToken = newHolder.fencingToken();
			FencedStore store = new FencedStore(this.clients.newTemplate(), storeKey, fenced);
			assertThat(store.write("written by the new holder", newToken)).isTrue();
			signal(holder, "CONT");
			input.println("WRITE written by the paused holder");
			boolean pausedWriteAccepted = Boolean.parseBoolean(readUntil(output, seen, "WRITTEN ").substring(8));
			input.println("CHECK");
			boolean stillHeld = Boolean.parseBoolean(readUntil(output, seen, "HELD_BY_ME ").substring(11));
			input.println("UNLOCK");
			String unlockReport = readUntil(output, seen, "EXPIRED ", "UNLOCKED");
			output.lines().forEach(seen::add);
			assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
			newHolder.unlock();
			return new Outcome(pausedToken, newToken, pausedWriteAccepted, store.value(), stillHeld, unlockReport,
					seen);
		}
		finally {
			holder.destroyForcibly();
		}
	}

	private static String readUntil(BufferedReader output, List<String> seen, String... prefixes) throws Exception {
		for (String line = output.readLine(); line != null; line = output.readLine()) {
			seen.add(line);
			for (String prefix : prefixes) {
				if (line.startsWith(prefix)) {
					return line;
				}
			}
		}
		throw new AssertionError("The holder JVM ended without printing " + String.join(" or ", prefixes) + ":\n"
				+ String.join("\n", seen));
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
		assertThat(kill.waitFor()).isZero();
	}

	record Outcome(long pausedToken, long newToken, boolean pausedWriteAccepted, String finalValue,
			boolean pausedStillHeld, String unlockReport, List<String> output) {
	}

}
