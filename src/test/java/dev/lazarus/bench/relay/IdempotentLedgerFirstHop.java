package dev.lazarus.bench.relay;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** The idempotent ledger relay's hop from {@value IdempotentLedgerHop#FIRST} to {@value IdempotentLedgerHop#SECOND} (see {@link IdempotentLedgerHop}). */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = IdempotentLedgerHop.FIRST),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class IdempotentLedgerFirstHop extends IdempotentLedgerHop {

    @Override
    protected String nextQueue() {
        return SECOND;
    }
}
