package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.TestThreads;
import io.github.redislock.TestTimeouts;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Over TLS, configured the Spring Boot way ({@code spring.data.redis.ssl.*} with an SSL
 * bundle), locking, waiting (the pub/sub connection) and the watchdog work as they do in
 * plain text: the client uses whatever connection Boot configured. (Without TLS the same
 * port refuses it, so the first test really went over TLS.)
 */
class TlsRedisTests {

	// JUnit deletes it, private key included, after the class's tests
	@TempDir
	static Path directory;

	private static Path certificate;

	private static int tlsPort;

	private static RedisServer redis;

	@BeforeAll
	static void startRedisWithTls() throws Exception {
		certificate = directory.resolve("redis.crt");
		Path key = directory.resolve("redis.key");
		writeSelfSignedCertificate(directory.resolve("redis.p12"), certificate, key);
		try (ServerSocket socket = new ServerSocket(0)) {
			tlsPort = socket.getLocalPort();
		}
		redis = RedisServers.start("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", certificate.toString(),
				"--tls-key-file", key.toString(), "--tls-ca-cert-file", certificate.toString(), "--tls-auth-clients",
				"no");
	}

	@AfterAll
	static void stopRedis() {
		if (redis != null) {
			redis.close();
		}
	}

	@Test
	void locksWaitersAndTheWatchdogWorkOverTls() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, BootClasses.redisAutoConfiguration(),
					RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.port=" + tlsPort,
					"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificate,
					// generous timings: a cold JVM's first TLS handshake on a busy
					// machine
					// took over 2 s, and a 300 ms watchdog can miss renewals there; this
					// test is about TLS, not about either bound
					"redis-lock.watchdog-timeout=1s")
			.withPropertyValues(TestTimeouts.commandTimeoutProperties())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisLockClient client = context.getBean(RedisLockClient.class);
				RedisLock lock = client.getLock("over-tls");
				lock.lock();
				await().pollInSameThread()
					.during(Duration.ofMillis(2500))
					.atMost(Duration.ofSeconds(5))
					.until(lock::isHeldByCurrentThread);
				CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
					RedisLock waiting = client.getLock("over-tls");
					try {
						boolean acquired = waiting.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(10));
						waiting.unlock();
						return acquired;
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}, TestThreads.perTask());
				await().atMost(Duration.ofSeconds(5))
					.until(() -> redis.command("PUBSUB", "NUMSUB", "lock:{over-tls}:released").endsWith("1"));
				lock.unlock();
				assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
			});
	}

	@Test
	void withoutTlsTheSamePortRefusesTheClientWithAClearError() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(BootClasses.redisAutoConfiguration(), RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=localhost", "spring.data.redis.port=" + tlsPort,
					"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s")
			.run((context) -> assertThatThrownBy(() -> context.getBean(RedisLockClient.class).getLock("plain").lock())
				.isInstanceOf(RedisLockException.class)
				.hasMessageContaining("Could not acquire lock 'plain'"));
	}

	// A self-signed certificate for localhost and 127.0.0.1, made with the JDK's keytool
	// and written as PEM for redis-server.
	private static void writeSelfSignedCertificate(Path keyStore, Path certificate, Path key) throws Exception {
		String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
		Process process = new ProcessBuilder(keytool, "-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize",
				"2048", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
				"-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", "secret", "-keypass", "secret")
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IOException("keytool failed: " + output);
		}
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(keyStore)) {
			store.load(in, "secret".toCharArray());
		}
		Files.writeString(certificate, pem("CERTIFICATE", store.getCertificate("redis").getEncoded()));
		Files.writeString(key, pem("PRIVATE KEY", store.getKey("redis", "secret".toCharArray()).getEncoded()));
	}

	private static String pem(String type, byte[] der) {
		return "-----BEGIN " + type + "-----\n"
				+ Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
				+ "\n-----END " + type + "-----\n";
	}

}
