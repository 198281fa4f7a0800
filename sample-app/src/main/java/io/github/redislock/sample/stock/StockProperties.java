package io.github.redislock.sample.stock;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the stock service.
 *
 * @param thinkTime how long pricing an order takes between reading and writing the stock
 * level; it is what lets concurrent reservations without a lock oversell
 * @param lockWait how long a reservation or a restock waits for the SKU's lock before
 * answering 409
 */
@ConfigurationProperties("sample.stock")
public record StockProperties(@DefaultValue("2ms") Duration thinkTime, @DefaultValue("2s") Duration lockWait) {

}
