package io.github.redislock.docs.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.RedisLockClient;
import io.github.redislock.docs.client.ClientSnippets.Order;
import io.github.redislock.docs.client.ClientSnippets.Receipt;
import io.github.redislock.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the client snippets of docs/client.md against a Redis of its own, so that they do
 * what the guide says, not only compile.
 */
class ClientSnippetsTests {

	// tag::extension[]
	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	// end::extension[]

	private LettuceConnectionFactory connectionFactory;

	private RedisLockClient locks;

	private final List<Long> savedTokens = new ArrayList<>();

	@BeforeEach
	void connect() {
		this.connectionFactory = redis.newConnectionFactory();
		StringRedisTemplate template = new StringRedisTemplate(this.connectionFactory);
		template.afterPropertiesSet();
		this.locks = ClientSnippets.build(template, (event) -> {
		}, ObservationRegistry.create(), new SimpleMeterRegistry());
		// the snippet's client has the default 2 s command timeout: a cold JVM on a busy
		// machine may take longer
		// to connect, so wait until it answers before the snippets run
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
			this.locks.getLock("warm-up").isLocked();
			return true;
		});
	}

	@AfterEach
	void close() {
		this.locks.close();
		this.connectionFactory.destroy();
	}

	@Test
	void lockSnippetsTakeAndReleaseTheLock() throws InterruptedException {
		Receipt receipt = ClientSnippets.withLock(this.locks, shipping());
		assertThat(receipt.orderId()).isEqualTo(42);
		ClientSnippets.lock(this.locks, (order, token) -> this.savedTokens.add(token), new Order(42));
		ClientSnippets.handles(this.locks, (order, token) -> this.savedTokens.add(token), new Order(42), shipping());
		assertThat(this.savedTokens).hasSize(2);
		assertThat(this.savedTokens.get(1)).isGreaterThan(this.savedTokens.get(0));
	}

	private static ClientSnippets.Shipping shipping() {
		return new ClientSnippets.Shipping() {

			@Override
			public Receipt ship(long orderId) {
				return new Receipt(orderId);
			}

			@Override
			public CompletableFuture<Receipt> shipAsync(long orderId) {
				return CompletableFuture.completedFuture(new Receipt(orderId));
			}

		};
	}

}
