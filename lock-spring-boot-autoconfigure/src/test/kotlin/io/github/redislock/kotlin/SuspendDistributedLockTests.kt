package io.github.redislock.kotlin

import io.github.redislock.LeaseExpiredException
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.RedisLockClient
import io.github.redislock.annotation.DistributedLock
import io.github.redislock.annotation.IfLeaseLost
import io.github.redislock.annotation.IfLocked
import io.github.redislock.autoconfigure.RedisLockTestContexts
import io.github.redislock.interceptor.AnnotationLockOperationSource
import io.github.redislock.internal.LockInspector
import io.github.redislock.testsupport.RedisServerExtension
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory
import java.time.Duration
import java.util.UUID
import java.util.concurrent.atomic.AtomicInteger

/**
 * `@DistributedLock` on Kotlin suspending functions, against a real Redis: Spring's proxy
 * hands the call to the interceptor as a Mono and awaits the Mono it returns, so the lock
 * is held until the coroutine's work ends, and nested locked calls re-enter through the
 * Reactor context that kotlinx-coroutines-reactor carries in the coroutine context. With
 * `permits = N`, at most N such calls of a name run at once.
 */
class SuspendDistributedLockTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis = RedisServerExtension()

		private val TIMEOUT: Duration = Duration.ofSeconds(10)

	}

	private lateinit var otherConnection: LettuceConnectionFactory

	private lateinit var otherProcess: RedisLockClient

	@BeforeEach
	fun startOtherProcess() {
		otherConnection = redis.newConnectionFactory()
		otherProcess = RedisLockClient.builder(otherConnection).build()
	}

	@AfterEach
	fun stopOtherProcess() {
		otherProcess.close()
		otherConnection.destroy()
	}

	@Test
	fun theLockIsHeldUntilTheSuspendingFunctionReturns() = run { context ->
		val id = unique()
		val orders = context.getBean(SuspendingOrders::class.java)
		val gate = CompletableDeferred<Unit>()
		runBlocking {
			// on other threads: this one blocks in Awaitility
			val first = async(Dispatchers.Default) { orders.ship(id, gate) }
			await().atMost(TIMEOUT).until { lock(id).isLocked }
			val second = async(Dispatchers.Default) { orders.ship(id, CompletableDeferred(Unit)) }
			await().atMost(TIMEOUT).until { inspector(context).waitingCount() == 1 }
			assertThat(second.isCompleted).isFalse()
			gate.complete(Unit)
			assertThat(withTimeout(TIMEOUT.toMillis()) { first.await() }).isEqualTo("shipped $id while held=true")
			assertThat(withTimeout(TIMEOUT.toMillis()) { second.await() }).isEqualTo("shipped $id while held=true")
		}
		awaitFree(id)
	}

	@Test
	fun aBusyLockThrowsLockNotAcquiredInTheCoroutine() = run { context ->
		val id = unique()
		lock(id).lock()
		try {
			val orders = context.getBean(SuspendingOrders::class.java)
			assertThatExceptionOfType(LockNotAcquiredException::class.java)
				.isThrownBy { runBlocking { orders.shipQuickly(id) } }
				.withMessage("Could not acquire lock 'order:$id' within 100ms: another holder kept it")
			assertThat(runBlocking { orders.shipIfFree(id) }).isNull()
		}
		finally {
			lock(id).unlock()
		}
	}

	@Test
	fun aNestedLockedCallOnTheSameNameReenters() = run { context ->
		val id = unique()
		// the inner function waits 0 ms: without re-entry it would fail at once
		val result = runBlocking { context.getBean(SuspendingOuter::class.java).shipTwice(id) }
		assertThat(result).isEqualTo("inner inner")
		awaitFree(id)
	}

	@Test
	fun cancellingTheCoroutineReleasesTheLock() = run { context ->
		val id = unique()
		runBlocking {
			val job = launch(Dispatchers.Default) {
				context.getBean(SuspendingOrders::class.java).ship(id, CompletableDeferred())
			}
			await().atMost(TIMEOUT).until { lock(id).isLocked }
			job.cancelAndJoin()
		}
		awaitFree(id)
	}

	@Test
	fun aLostLeaseCancelsTheCoroutineWithInterrupt() = run { context ->
		val id = unique()
		val cancelled = CompletableDeferred<Throwable>()
		runBlocking {
			val call = async(Dispatchers.Default) {
				runCatching { context.getBean(SuspendingOrders::class.java).shipUntilLost(id, cancelled) }
			}
			await().atMost(TIMEOUT).until { lock(id).isLocked }
			assertThat(lock(id).forceUnlock()).isTrue()
			val outcome = withTimeout(TIMEOUT.toMillis()) { call.await() }
			assertThat(outcome.exceptionOrNull()).isInstanceOf(LeaseExpiredException::class.java)
			// the function's own coroutine saw the cancel
			assertThat(withTimeout(TIMEOUT.toMillis()) { cancelled.await() })
				.isInstanceOf(CancellationException::class.java)
		}
		awaitFree(id)
	}

	@Test
	fun aFailureReleasesTheLockAndReachesTheCaller() = run { context ->
		val id = unique()
		assertThatExceptionOfType(IllegalStateException::class.java).isThrownBy {
			runBlocking { context.getBean(SuspendingOrders::class.java).fail(id) }
		}.withMessage("out of stock")
		awaitFree(id)
	}

	@Test
	fun atMostPermitsSuspendingCallsRunAtOnceAndEachHoldsItsPermitUntilItReturns() = run { context ->
		val region = unique()
		val exports = context.getBean(SuspendingExports::class.java)
		val semaphore = otherProcess.getSemaphore("exports:$region", 2)
		val gates = List(3) { CompletableDeferred<Unit>() }
		runBlocking {
			val calls = gates.map { gate -> async(Dispatchers.Default) { exports.export(region, gate) } }
			// two run, the third waits for a permit
			await().atMost(TIMEOUT).until { exports.inside.get() == 2 && inspector(context).waitingCount() == 1 }
			assertThat(semaphore.availablePermits()).isZero()
			assertThatExceptionOfType(LockNotAcquiredException::class.java)
				.isThrownBy { runBlocking { exports.exportNow(region) } }
			gates.forEach { it.complete(Unit) }
			calls.forEach { assertThat(withTimeout(TIMEOUT.toMillis()) { it.await() }).isEqualTo("exported $region") }
		}
		assertThat(exports.most.get()).isEqualTo(2)
		await().atMost(TIMEOUT).until { semaphore.availablePermits() == 2 }
	}

	// Kotlin compiles an open suspend fun into the method and a static synthetic
	// <name>$suspendImpl that carries the same annotations; Spring's pointcut sees both
	// (in an order that varies), and the static one must not fail start-up
	@Test
	fun theCompilersStaticSuspendImplIsNoLockedMethod() {
		val impl = SuspendingOuter::class.java.declaredMethods.first { it.name.endsWith("\$suspendImpl") }
		val source = AnnotationLockOperationSource(Duration.ofSeconds(1), null)
		assertThat(source.getLockOperation(impl, SuspendingOuter::class.java)).isNull()
	}

	private fun lock(id: String) = otherProcess.getLock("order:$id")

	private fun awaitFree(id: String) {
		await().atMost(TIMEOUT).until { !lock(id).isLocked }
	}

	private fun inspector(context: AssertableApplicationContext): LockInspector =
		LockInspector.of(context.getBean(RedisLockClient::class.java)).orElseThrow()

	private fun run(test: (AssertableApplicationContext) -> Unit) {
		ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(*RedisLockTestContexts.redisProperties(redis))
			// a lost lease is found within a renewal: a third of the watchdog timeout
			.withPropertyValues("redis-lock.wait-time=10s", "redis-lock.watchdog-timeout=3s")
			.withUserConfiguration(Services::class.java)
			.run { context ->
				assertThat(context).hasNotFailed()
				test(context)
				await().atMost(TIMEOUT).untilAsserted {
					assertThat(inspector(context).heldCount()).isZero()
					assertThat(inspector(context).waitingCount()).isZero()
				}
			}
	}

	private fun unique() = UUID.randomUUID().toString()

	@Configuration(proxyBeanMethods = false)
	open class Services {

		@Bean
		open fun suspendingOrders() = SuspendingOrders()

		@Bean
		open fun suspendingOuter(orders: SuspendingOrders) = SuspendingOuter(orders)

		@Bean
		open fun suspendingExports() = SuspendingExports()

	}

	open class SuspendingExports {

		// open: read through Spring's class-based proxy, which must not shadow them
		open val inside = AtomicInteger()

		open val most = AtomicInteger()

		@DistributedLock(name = "exports", key = ["#region"], permits = 2)
		open suspend fun export(region: String, gate: CompletableDeferred<Unit>): String {
			most.accumulateAndGet(inside.incrementAndGet()) { a, b -> maxOf(a, b) }
			try {
				gate.await()
				return "exported $region"
			}
			finally {
				inside.decrementAndGet()
			}
		}

		@DistributedLock(name = "exports", key = ["#region"], permits = 2, waitTime = "0")
		open suspend fun exportNow(region: String): String = "exported $region"

	}

	open class SuspendingOrders {

		@DistributedLock(name = "order", key = ["#id"])
		open suspend fun ship(id: String, gate: CompletableDeferred<Unit>): String {
			gate.await()
			return "shipped $id while held=" + heldHere(id)
		}

		@DistributedLock(name = "order", key = ["#id"], waitTime = "100ms")
		open suspend fun shipQuickly(id: String): String = "shipped $id"

		@DistributedLock(name = "order", key = ["#id"], waitTime = "50ms", ifLocked = IfLocked.SKIP)
		open suspend fun shipIfFree(id: String): String? = "shipped $id"

		@DistributedLock(name = "order", key = ["#id"], waitTime = "0")
		open suspend fun shipInner(id: String): String = "inner"

		@DistributedLock(name = "order", key = ["#id"])
		open suspend fun fail(id: String): String = throw IllegalStateException("out of stock")

		@DistributedLock(name = "order", key = ["#id"], ifLeaseLost = IfLeaseLost.INTERRUPT)
		open suspend fun shipUntilLost(id: String, cancelled: CompletableDeferred<Throwable>): String {
			try {
				awaitCancellation()
			}
			catch (ex: CancellationException) {
				cancelled.complete(ex)
				throw ex
			}
		}

		// the lock as seen from Redis, by its hash's existence
		private fun heldHere(id: String): Boolean =
			redis.command("EXISTS", "lock:{order:$id}") == "1"

	}

	open class SuspendingOuter(private val orders: SuspendingOrders) {

		@DistributedLock(name = "order", key = ["#id"])
		open suspend fun shipTwice(id: String): String = orders.shipInner(id) + " " + orders.shipInner(id)

	}

}
