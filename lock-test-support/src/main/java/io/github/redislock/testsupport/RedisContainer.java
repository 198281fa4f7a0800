package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis container bound to a fixed free host port, so that a stop and start keep the
 * address clients use.
 */
final class RedisContainer implements RedisServer {

	private static final DockerImageName IMAGE = DockerImageName.parse("redis:7.2-alpine");

	private static @Nullable Boolean dockerAvailable;

	private final GenericContainer<?> container;

	private final int port;

	private boolean paused;

	private RedisContainer(GenericContainer<?> container, int port) {
		this.container = container;
		this.port = port;
	}

	/**
	 * Whether Testcontainers can start containers. Testcontainers is asked only when a
	 * Docker engine answers ({@link DockerEngine}): without one it would log an
	 * {@code ERROR} first. The answer is kept for the JVM.
	 */
	static synchronized boolean isDockerAvailable() {
		if (dockerAvailable == null) {
			dockerAvailable = checkDocker();
		}
		return dockerAvailable;
	}

	/** Asks as {@link #isDockerAvailable()} does, every time. */
	static boolean checkDocker() {
		try {
			return DockerEngine.ofThisMachine().mayAnswer() && DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	static RedisContainer start(String... extraArguments) {
		int port = freePort();
		List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no"));
		command.addAll(List.of(extraArguments));
		GenericContainer<?> container = new GenericContainer<>(IMAGE).withExposedPorts(6379)
			.withCommand(command.toArray(String[]::new))
			.withCreateContainerCmdModifier((cmd) -> {
				HostConfig hostConfig = Objects.requireNonNull(cmd.getHostConfig(), "no host configuration to bind");
				hostConfig.withPortBindings(new PortBinding(Ports.Binding.bindPort(port), ExposedPort.tcp(6379)));
			})
			.waitingFor(Wait.forListeningPort());
		container.start();
		return new RedisContainer(container, port);
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public void start() {
		start(false);
	}

	@Override
	public void startWhileLoading() {
		start(true);
	}

	private synchronized void start(boolean whileLoading) {
		if (isRunning()) {
			return;
		}
		DockerClientFactory.instance().client().startContainerCmd(this.container.getContainerId()).exec();
		this.paused = false;
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (System.nanoTime() < deadline) {
			if (whileLoading ? RespCommand.answersOrLoading(host(), this.port)
					: RespCommand.answers(host(), this.port)) {
				return;
			}
			Thread.onSpinWait();
		}
		throw new IllegalStateException("Redis container did not answer PING after start");
	}

	@Override
	public synchronized void stop() {
		resume();
		DockerClientFactory.instance().client().killContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public synchronized void restartWithoutData() {
		resume();
		try {
			// the image's working directory: what Redis writes to the files it still
			// has open until it is killed is gone with them
			this.container.execInContainer("sh", "-c", "rm -rf /data/*");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while deleting the data of " + this, ex);
		}
		stop();
		start();
	}

	@Override
	public synchronized void pause() {
		DockerClientFactory.instance().client().pauseContainerCmd(this.container.getContainerId()).exec();
		this.paused = true;
	}

	@Override
	public synchronized void resume() {
		if (this.paused) {
			DockerClientFactory.instance().client().unpauseContainerCmd(this.container.getContainerId()).exec();
			this.paused = false;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		Boolean running = DockerClientFactory.instance()
			.client()
			.inspectContainerCmd(this.container.getContainerId())
			.exec()
			.getState()
			.getRunning();
		return Boolean.TRUE.equals(running) && !this.paused;
	}

	@Override
	public void close() {
		this.container.stop();
	}

	@Override
	public String toString() {
		return "Redis container on " + host() + ":" + this.port;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
