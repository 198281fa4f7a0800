package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.LockedServices.Audit;
import io.github.redislock.annotation.LockedServices.Billing;
import io.github.redislock.annotation.LockedServices.DefaultShipping;
import io.github.redislock.annotation.LockedServices.InnerService;
import io.github.redislock.annotation.LockedServices.OrderService;
import io.github.redislock.annotation.LockedServices.ReentrantService;
import io.github.redislock.annotation.LockedServices.Shipping;
import io.github.redislock.annotation.LockedServices.SkippingService;
import io.github.redislock.annotation.LockedServices.TenantContext;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on real beans against a real Redis: which lock each form of
 * key takes, and what a call does when it cannot have it.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final OtherProcess otherProcess = new OtherProcess(redis);

	@Test
	void keyByParameterNameLocksNamePlusValue() {
		run((context) -> {
			String id = unique();
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.byName(id, heldBy(context, "OrderService.byName:" + id))).isTrue();
			assertThat(orders.calls()).isEqualTo(1);
			assertThat(context.getBean(RedisLockClient.class).getLock("OrderService.byName:" + id).isLocked())
				.isFalse();
		});
	}

	@Test
	void keyByPositionWorksAsP0AndA0() {
		run((context) -> {
			String id = unique();
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.byP0(id, heldBy(context, "OrderService.byP0:" + id))).isTrue();
			assertThat(orders.byA0(id, heldBy(context, "OrderService.byA0:" + id))).isTrue();
		});
	}

	@Test
	void keyByRootObjectSeesMethodArgumentsTargetAndTargetClass() {
		run((context) -> {
			String id = unique();
			assertThat(context.getBean(OrderService.class)
				.byRoot(id, heldBy(context, "OrderService.byRoot:byRoot:" + id + ":eu:OrderService"))).isTrue();
		});
	}

	@Test
	void keyByBeanReference() {
		run((context) -> assertThat(
				context.getBean(OrderService.class).byBean(heldBy(context, "OrderService.byBean:tenant-7")))
			.isTrue());
	}

	@Test
	void compositeKeyJoinsItsPartsWithColons() {
		run((context) -> assertThat(
				context.getBean(OrderService.class).composite("acme", 42, heldBy(context, "order:acme:42")))
			.isTrue());
	}

	@Test
	void collectionAndArrayKeysLockEveryElement() {
		run((context) -> {
			String a = unique();
			String b = unique();
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.collection(List.of(a, b), heldBy(context, "accounts:" + a, "accounts:" + b))).isTrue();
			assertThat(orders.array(new String[] { b, a }, heldBy(context, "accounts:" + a, "accounts:" + b))).isTrue();
			assertThat(orders.tenantAndCollection("t1", List.of(a, b), heldBy(context, "pair:t1:" + a, "pair:t1:" + b)))
				.isTrue();
		});
	}

	@Test
	void emptyKeyLocksTheWholeMethod() {
		run((context) -> assertThat(
				context.getBean(OrderService.class).wholeMethod(heldBy(context, "OrderService.wholeMethod")))
			.isTrue());
	}

	@Test
	void collectionKeysAreAllOrNothingWhenOneIsTaken() {
		run((context) -> {
			String free = unique();
			String taken = unique();
			RedisLock other = this.otherProcess.getLock("accounts:" + taken);
			other.lock();
			OrderService orders = context.getBean(OrderService.class);
			assertThatThrownBy(() -> orders.collection(List.of(free, taken), () -> true))
				.isInstanceOf(LockNotAcquiredException.class)
				.hasMessageContaining("accounts:" + taken);
			assertThat(context.getBean(RedisLockClient.class).getLock("accounts:" + free).isLocked()).isFalse();
			other.unlock();
		});
	}

	@Test
	void twoCallsLockingTheSameTwoKeysInOppositeOrderNeverDeadlock() {
		run((context) -> {
			String a = unique();
			String b = unique();
			OrderService orders = context.getBean(OrderService.class);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				List<Future<Integer>> results = new ArrayList<>();
				for (List<String> ids : List.of(List.of(a, b), List.of(b, a))) {
					results.add(threads.submit(() -> {
						int done = 0;
						for (int i = 0; i < 100; i++) {
							done += orders.tenantAndCollection("t", ids, () -> 1);
						}
						return done;
					}));
				}
				for (Future<Integer> result : results) {
					assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(100);
				}
			}
			finally {
				threads.shutdownNow();
			}
		});
	}

	@Test
	void whenLockedTheDefaultThrowsAndTheMethodDoesNotRun() {
		run((context) -> {
			String id = unique();
			this.otherProcess.getLock("skip:" + id).lock();
			SkippingService service = context.getBean(SkippingService.class);
			assertThatThrownBy(() -> service.throwing(id)).isInstanceOf(LockNotAcquiredException.class)
				.hasMessage("Could not acquire lock 'skip:" + id + "' within 50ms: another holder kept it");
			assertThat(service.calls()).isZero();
		});
	}

	@Test
	void whenLockedSkipReturnsNullOrEmptyWithoutRunningTheMethod() {
		run((context) -> {
			String id = unique();
			this.otherProcess.getLock("skip:" + id).lock();
			SkippingService service = context.getBean(SkippingService.class);
			assertThat(service.skipToNull(id)).isNull();
			assertThat(service.skipToEmpty(id)).isEmpty();
			assertThat(service.calls()).isZero();
			String free = unique();
			assertThat(service.skipToNull(free)).isEqualTo("ran");
			assertThat(service.skipToEmpty(free)).contains("ran");
		});
	}

	@Test
	void whenLockedTheFallbackBeanAnswers() {
		run((context) -> {
			String id = unique();
			this.otherProcess.getLock("skip:" + id).lock();
			SkippingService service = context.getBean(SkippingService.class);
			assertThat(service.withFallback(id)).isEqualTo("busy: withFallback(" + id + ") skip:" + id);
			assertThat(service.calls()).isZero();
		});
	}

	@Test
	void leaseTimeFromAPlaceholderIsUsed() {
		run((context) -> {
			String id = unique();
			Duration lease = context.getBean(SkippingService.class)
				.withLease(id, () -> context.getBean(RedisLockClient.class).getLock("lease:" + id).remainingLease());
			assertThat(lease).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
		});
	}

	@Test
	void aFailedReleaseNeverMasksTheMethodsOwnException() {
		run((context) -> {
			String id = unique();
			RedisLock lock = context.getBean(RedisLockClient.class).getLock("short:" + id);
			SkippingService service = context.getBean(SkippingService.class);
			assertThatThrownBy(() -> service.withShortLease(id, () -> {
				await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
				throw new IllegalStateException("the method's own failure");
			})).hasMessage("the method's own failure")
				.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
					.isInstanceOf(LeaseExpiredException.class)
					.extracting(Throwable::getMessage, org.assertj.core.api.InstanceOfAssertFactories.STRING)
					.contains("its lease of 200ms ran out"));
		});
	}

	@Test
	void aFailedReleaseAfterSuccessIsLoggedAndTheResultKept(CapturedOutput output) {
		run((context) -> {
			String id = unique();
			RedisLock lock = context.getBean(RedisLockClient.class).getLock("short:" + id);
			String result = context.getBean(SkippingService.class).withShortLease(id, () -> {
				await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
				return "done";
			});
			assertThat(result).isEqualTo("done");
			assertThat(output).contains("Lock 'short:" + id + "' (key 'lock:{short:" + id + "}') was acquired")
				.contains("its lease of 200ms ran out")
				.doesNotContain("cleanly");
		});
	}

	@Test
	void aLostLeaseFailsTheCallAfterTheMethodRanWhenTheAnnotationAsksForIt() {
		run((context) -> {
			String id = unique();
			RedisLock lock = context.getBean(RedisLockClient.class).getLock("short:" + id);
			SkippingService service = context.getBean(SkippingService.class);
			assertThatThrownBy(() -> service.failingOnLostLease(id, () -> {
				await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
				return "done";
			})).isInstanceOf(LeaseExpiredException.class)
				.hasMessageContaining("Lock 'short:" + id + "'")
				.hasMessageContaining("its lease of 200ms ran out");
			assertThat(service.calls()).isOne();
			assertThat(service.failingOnLostLease(id, () -> "kept")).as("a lease kept returns the result")
				.isEqualTo("kept");
			assertThat(lock.isLocked()).isFalse();
		});
	}

	@Test
	void keyPartsWithBracesAreLockedWithTheBracesEscaped() {
		run((context) -> {
			String id = "{\"sku\":\"" + unique() + "\"}";
			String escaped = id.replace("{", "%7B").replace("}", "%7D");
			OrderService orders = context.getBean(OrderService.class);
			assertThat(orders.byName(id, heldBy(context, "OrderService.byName:" + escaped))).isTrue();
			assertThat(orders.calls()).isOne();
		});
	}

	@Test
	void aTooLongLockNameNamesTheMethodAndTheExpressionAndSuggestsADigest() {
		run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> orders.byName("x".repeat(2000), () -> true))
				.withMessageStartingWith("@DistributedLock on OrderService.byName(String, Supplier): key expression "
						+ "'#orderId' evaluated to 'xxxx")
				.withMessageContaining("must be at most 1024 characters, was 2020")
				.withMessageContaining("md5DigestAsHex");
			assertThat(orders.calls()).isZero();
		});
	}

	@Test
	void nullOrBlankKeyIsRejectedBeforeAnythingRunsOrIsLocked() {
		run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			assertThatIllegalArgumentException().isThrownBy(() -> orders.byName(null, () -> true))
				.withMessage("@DistributedLock on OrderService.byName(String, Supplier): key expression '#orderId' "
						+ "evaluated to null; refusing to lock a key such as 'OrderService.byName:null'");
			assertThatIllegalArgumentException().isThrownBy(() -> orders.byName("  ", () -> true))
				.withMessageContaining("evaluated to a blank value");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> orders.collection(java.util.Arrays.asList("a", null), () -> true))
				.withMessageContaining("'#accountIds' evaluated to null");
			assertThatIllegalArgumentException().isThrownBy(() -> orders.collection(List.of(), () -> true))
				.withMessageContaining("evaluated to an empty collection");
			assertThat(orders.calls()).isZero();
			assertThat(redis.command("EXISTS", "lock:{OrderService.byName:null}", "lock:{accounts:a}")).isEqualTo("0");
		});
	}

	@Test
	void aLockedMethodCallingAnotherOnTheSameKeyReentersTheLock() {
		run((context) -> {
			String id = unique();
			Integer holds = context.getBean(ReentrantService.class)
				.outer(id, () -> context.getBean(RedisLockClient.class).getLock("account:" + id).getHoldCount());
			assertThat(holds).isEqualTo(2);
			assertThat(context.getBean(RedisLockClient.class).getLock("account:" + id).isLocked()).isFalse();
		});
	}

	@Test
	void annotationOnAnInterfaceOrSuperclassMethodOrAsMetaAnnotationWorks() {
		run((context) -> {
			String id = unique();
			assertThat(context.getBean(Shipping.class).ship(id, heldBy(context, "shipping:" + id))).isTrue();
			assertThat(context.getBean(Billing.class).bill(id, heldBy(context, "billing:" + id))).isTrue();
			assertThat(context.getBean(Audit.class).record(id, heldBy(context, "audit:" + id))).isTrue();
		});
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("test.lock.lease=10s")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context);
			});
	}

	private static Supplier<Boolean> heldBy(AssertableApplicationContext context, String... lockNames) {
		RedisLockClient client = context.getBean(RedisLockClient.class);
		return () -> {
			for (String name : lockNames) {
				assertThat(client.getLock(name).isHeldByCurrentThread()).as("holds lock '%s'", name).isTrue();
			}
			return true;
		};
	}

	private static String unique() {
		return UUID.randomUUID().toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		SkippingService skippingService() {
			return new SkippingService();
		}

		@Bean
		InnerService innerService() {
			return new InnerService();
		}

		@Bean
		ReentrantService reentrantService(InnerService innerService) {
			return new ReentrantService(innerService);
		}

		@Bean
		Shipping shipping() {
			return new DefaultShipping();
		}

		@Bean
		Billing billing() {
			return new Billing();
		}

		@Bean
		Audit audit() {
			return new Audit();
		}

		@Bean
		TenantContext tenantContext() {
			return new TenantContext("tenant-7");
		}

		@Bean
		LockFallback busyFallback() {
			return (method, arguments, exception) -> "busy: " + method.getName() + "(" + arguments[0] + ") "
					+ exception.getLockName();
		}

	}

}
