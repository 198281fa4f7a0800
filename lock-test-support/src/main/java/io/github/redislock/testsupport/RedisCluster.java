package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of masters, each a {@code redis-server} child process on a free
 * loopback port, joined with {@code redis-cli --cluster create}. The test owns it and
 * closes it.
 */
public final class RedisCluster implements AutoCloseable {

	private final List<RedisProcess> nodes;

	private RedisCluster(List<RedisProcess> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Starts a cluster and waits until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters (at least 3)
	 */
	public static RedisCluster start(int masters) {
		String cli = RedisProcess.findExecutable("redis-cli");
		if (cli == null) {
			throw new IllegalStateException("A Redis Cluster test needs 'redis-cli' next to redis-server; install "
					+ "Redis, e.g. 'sudo apt-get install -y redis-server'");
		}
		List<RedisProcess> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters; i++) {
				nodes.add(RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "2000"));
			}
			List<String> command = new ArrayList<>(List.of(cli, "--cluster", "create"));
			for (RedisProcess node : nodes) {
				command.add(node.host() + ":" + node.port());
			}
			command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
			run(command);
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.awaitState("ok");
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisProcess::close);
			throw ex;
		}
	}

	/** The nodes, as {@code host:port}, for {@code spring.data.redis.cluster.nodes}. */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** The nodes themselves, to send commands to or to stop. */
	public List<RedisServer> nodes() {
		return List.copyOf(this.nodes);
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisProcess::close);
	}

	private void awaitState(String state) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			if (this.nodes.stream()
				.allMatch((node) -> node.command("CLUSTER", "INFO").contains("cluster_state:" + state))) {
				return;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("The Redis Cluster did not reach cluster_state:" + state + " in 20s");
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("'" + String.join(" ", command) + "' failed:\n" + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
