package io.github.redislock.sample.stock;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Stock of one SKU over HTTP: read it, restock it, reserve from it (blocking, or
 * reactively).
 */
@RestController
@RequestMapping("/stock/{sku}")
public class StockController {

	private final StockRepository repository;

	private final ReservationService reservations;

	private final RestockService restocks;

	private final ReactiveReservationService reactiveReservations;

	StockController(StockRepository repository, ReservationService reservations, RestockService restocks,
			ReactiveReservationService reactiveReservations) {
		this.repository = repository;
		this.reservations = reservations;
		this.restocks = restocks;
		this.reactiveReservations = reactiveReservations;
	}

	@GetMapping
	StockLevel level(@PathVariable String sku) {
		return new StockLevel(sku, this.repository.available(sku));
	}

	@PostMapping("/restock")
	StockLevel restock(@PathVariable String sku, @RequestBody QuantityRequest request) {
		return this.restocks.restock(sku, request.quantity());
	}

	@PostMapping("/reservations")
	@ResponseStatus(HttpStatus.CREATED)
	Reservation reserve(@PathVariable String sku, @RequestBody QuantityRequest request) {
		return this.reservations.reserve(sku, request.quantity());
	}

	// Spring MVC answers once the Mono completes, without holding a request thread
	// meanwhile; errors reach the same exception handlers (409 when the lock is busy)
	@PostMapping("/reactive-reservations")
	@ResponseStatus(HttpStatus.CREATED)
	Mono<Reservation> reserveReactively(@PathVariable String sku, @RequestBody QuantityRequest request) {
		return this.reactiveReservations.reserve(sku, request.quantity());
	}

	/**
	 * A number of units to reserve or add.
	 *
	 * @param quantity the units
	 */
	record QuantityRequest(int quantity) {

	}

}
