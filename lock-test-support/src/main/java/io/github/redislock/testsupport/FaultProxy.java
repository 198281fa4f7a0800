package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy between clients and a Redis server that can misbehave on demand, as a
 * network does: add latency, cut every connection (and refuse new ones), or hold all
 * traffic (a partition: connections stay open, nothing arrives; as TCP would retransmit,
 * what was held is delivered after {@link #heal()}). Point clients at {@link #port()};
 * point the proxy at another server with {@link #retarget(String, int)}.
 *
 * <pre class="code">
 * try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
 *     proxy.cut();
 *     ...
 *     proxy.heal();
 * }
 * </pre>
 */
public final class FaultProxy implements AutoCloseable {

	private enum Mode {

		PASS, CUT, BLACK_HOLE

	}

	private volatile InetSocketAddress target;

	private final ServerSocket server;

	private final ExecutorService threads = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "fault-proxy");
		thread.setDaemon(true);
		return thread;
	});

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile Mode mode = Mode.PASS;

	private volatile long latencyNanos;

	private final AtomicInteger held = new AtomicInteger();

	private FaultProxy(String targetHost, int targetPort) throws IOException {
		this.target = new InetSocketAddress(targetHost, targetPort);
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		this.threads.execute(this::accept);
	}

	/** Starts a proxy to the given server on a free loopback port. */
	public static FaultProxy start(String targetHost, int targetPort) {
		try {
			return new FaultProxy(targetHost, targetPort);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The host clients connect to. */
	public String host() {
		return "127.0.0.1";
	}

	/** The port clients connect to. */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Points the connections accepted from now on at another server, such as a promoted
	 * replica. Open connections stay with the server they were made to: {@link #cut()}
	 * them to move every client.
	 * @param targetHost the server's host
	 * @param targetPort the server's port
	 */
	public void retarget(String targetHost, int targetPort) {
		this.target = new InetSocketAddress(targetHost, targetPort);
	}

	/** Delays every chunk of data, both ways, by the given time. */
	public void latency(Duration latency) {
		this.latencyNanos = latency.toNanos();
	}

	/** Closes every open connection and refuses new ones until {@link #heal()}. */
	public void cut() {
		this.mode = Mode.CUT;
		closeAll();
	}

	/**
	 * Resets every open connection (a TCP RST, as a firewall or a NAT that dropped them
	 * sends) and refuses new ones until {@link #heal()}.
	 */
	public void reset() {
		this.mode = Mode.CUT;
		for (Socket socket : this.sockets) {
			try {
				// closing with a zero linger time sends RST rather than FIN
				socket.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// closed already
			}
			closeQuietly(socket);
		}
	}

	/**
	 * Keeps connections open but lets nothing through, either way, until {@link #heal()};
	 * then what was held arrives late.
	 */
	public void blackHole() {
		this.mode = Mode.BLACK_HOLE;
	}

	/**
	 * How many chunks of data, either way, the proxy has received and holds back (see
	 * {@link #blackHole()}): a test waits for a command to have left its client, not
	 * merely to have been handed to it.
	 * @return the number of chunks held
	 */
	public int held() {
		return this.held.get();
	}

	/**
	 * Lets traffic through again, without latency. Connections cut before stay closed.
	 */
	public void heal() {
		this.latencyNanos = 0;
		this.mode = Mode.PASS;
	}

	@Override
	public void close() {
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		closeAll();
		this.threads.shutdownNow();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				if (this.mode == Mode.CUT) {
					client.close();
					continue;
				}
				this.sockets.add(client);
				Socket upstream = new Socket();
				try {
					upstream.connect(this.target, 2000);
				}
				catch (IOException ex) {
					// the target refused (a restarting Redis): so does the proxy, rather
					// than leave the client waiting on a connection nothing answers
					closeQuietly(client);
					continue;
				}
				this.sockets.add(upstream);
				this.threads.execute(() -> pump(client, upstream));
				this.threads.execute(() -> pump(upstream, client));
			}
			catch (IOException ex) {
				// server closed, or the target refused: the client sees its connection
				// drop
			}
		}
	}

	private void pump(Socket from, Socket to) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				if (this.mode == Mode.BLACK_HOLE) {
					this.held.incrementAndGet();
					while (this.mode == Mode.BLACK_HOLE) {
						LockSupport.parkNanos(1_000_000);
					}
					this.held.decrementAndGet();
				}
				if (this.mode == Mode.CUT) {
					// a partition that ends in a cut delivers nothing of what it held,
					// even if this thread gets here before the sockets are closed
					break;
				}
				long latency = this.latencyNanos;
				if (latency > 0) {
					LockSupport.parkNanos(latency);
				}
				out.write(buffer, 0, read);
				out.flush();
			}
		}
		catch (SocketException ex) {
			// cut
		}
		catch (IOException ex) {
			// connection gone
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	private void closeAll() {
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
	}

	private void closeQuietly(Socket socket) {
		this.sockets.remove(socket);
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already closed
		}
	}

}
