package io.github.redislock.torture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.WorkerJvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link TortureWorker} JVM of {@link TortureTests}, and what it printed.
 */
record TortureWorkerJvm(int index, Process process, List<String> lines) {

	static TortureWorkerJvm start(int index, FaultProxy proxy, TortureShape shape, Path store, Path records,
			RedisServer counters) throws IOException {
		Process process = new ProcessBuilder(WorkerJvm.command(List.of("-Xmx256m"), TortureWorker.class, proxy.host(),
				Integer.toString(proxy.port()), Integer.toString(shape.names()), Integer.toString(shape.threads()),
				store.toString(), Long.toString(shape.seed() * 1000 + index), Integer.toString(index),
				records.toString(), Integer.toString(shape.permits()), counters.host(),
				Integer.toString(counters.port())))
			.redirectErrorStream(true)
			.start();
		TortureWorkerJvm worker = new TortureWorkerJvm(index, process, new CopyOnWriteArrayList<>());
		Thread reader = new Thread(worker::read, "torture-worker-" + index + "-output");
		reader.setDaemon(true);
		reader.start();
		return worker;
	}

	boolean closedOrGone() {
		return this.lines.contains("CLOSED") || !this.process.isAlive();
	}

	/** Lets the worker close its connections and exit, and waits for it. */
	void exit() throws InterruptedException {
		if (this.process.isAlive()) {
			send("EXIT");
		}
		assertThat(this.process.waitFor(1, TimeUnit.MINUTES)).as(output()).isTrue();
		// its output is read to the end
		await().atMost(Duration.ofSeconds(10)).until(() -> this.lines.contains("END"));
	}

	void send(String command) {
		try {
			this.process.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
			this.process.getOutputStream().flush();
		}
		catch (IOException ex) {
			// it is gone; its exit value tells why
		}
	}

	String line(String prefix) {
		return this.lines.stream()
			.filter((line) -> line.startsWith(prefix))
			.map((line) -> line.substring(prefix.length()))
			.findFirst()
			.orElse("(not reported)");
	}

	String output() {
		return String.join("\n", this.lines);
	}

	private void read() {
		try (BufferedReader output = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = output.readLine(); line != null; line = output.readLine()) {
				this.lines.add(line);
			}
			this.lines.add("END");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
