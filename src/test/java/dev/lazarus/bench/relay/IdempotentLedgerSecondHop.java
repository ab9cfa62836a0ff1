package dev.lazarus.bench.relay;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** The idempotent ledger relay's hop from {@value IdempotentLedgerHop#SECOND} to {@value IdempotentLedgerHop#THIRD} (see {@link IdempotentLedgerHop}). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = IdempotentLedgerHop.SECOND),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class IdempotentLedgerSecondHop extends IdempotentLedgerHop {

    @Override
    protected String nextQueue() {
        return THIRD;
    }
}
