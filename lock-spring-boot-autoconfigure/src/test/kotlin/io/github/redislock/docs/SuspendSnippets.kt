package io.github.redislock.docs

import io.github.redislock.annotation.DistributedLock
import io.github.redislock.annotation.IfLocked
import org.springframework.stereotype.Service

/**
 * The Kotlin code of docs/reactive-and-kotlin.md, compiled with this module's Kotlin tests
 * (the docs-snippets module has Java only); DocsSnippetsTests compares it with the Markdown.
 */
interface Carrier {

    suspend fun book(orderId: Long): Receipt

}

data class Receipt(val orderId: Long)

// tag::suspend[]
@Service
class OrderService(private val carrier: Carrier) {

    // held until the function returns or throws; released when the coroutine is cancelled
    @DistributedLock(key = ["#orderId"])
    suspend fun ship(orderId: Long): Receipt = carrier.book(orderId)

    // null when another caller holds the lock
    @DistributedLock(key = ["#orderId"], waitTime = "0", ifLocked = IfLocked.SKIP)
    suspend fun tryShip(orderId: Long): Receipt? = carrier.book(orderId)

}
// end::suspend[]
