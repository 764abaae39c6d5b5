"""PII redaction for the sqlite store (contract-reference A11)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_driver.sqlite.pii import (
    PII_CLASSES,
    Redaction,
    has_likely_pii,
    redact_pii,
    redaction_token,
)


def tok(pii_class: str) -> str:
    return redaction_token(pii_class)


# (class, text with a valid identifier, the identifier inside it) for strict classes.
STRICT_VALID = [
    ("CPF", "CPF: 111.444.777-35.", "111.444.777-35"),
    ("CPF", "cpf 529.982.247-25", "529.982.247-25"),
    ("CNPJ", "CNPJ 11.222.333/0001-81 ok", "11.222.333/0001-81"),
    ("CUIT", "CUIT 20-11111111-2", "20-11111111-2"),
    ("IBAN", "IBAN DE89370400440532013000 ok", "DE89370400440532013000"),
    ("IBAN", "pay GB82 WEST 1234 5698 7654 32 now", "GB82 WEST 1234 5698 7654 32"),
    ("AADHAAR", "Aadhaar 2341 2341 2346", "2341 2341 2346"),
    ("AADHAAR", "id 4987-6543-2102 end", "4987-6543-2102"),
    ("AADHAAR", "Aadhaar: 234123412346", "234123412346"),
    ("AADHAAR", "UIDAI no. 987654321096", "987654321096"),
    ("DNI", "DNI 12345678Z", "12345678Z"),
    ("DNI", "NIE X1234567L", "X1234567L"),
    ("NINO", "NI no AB123456C", "AB123456C"),
    ("SSN", "ssn 123-45-6789", "123-45-6789"),
    ("RRN", "주민번호 900101-1234567", "900101-1234567"),
    ("RFC", "Mi RFC VECJ880326XK4 .", "VECJ880326XK4"),
    ("RFC", "rfc vecj880326xk4", "vecj880326xk4"),
    ("PAN_IN", "PAN: ABCDE1234F", "ABCDE1234F"),
    ("MYNUMBER", "マイナンバー: 123456789012", "123456789012"),
    ("MYNUMBER", "My Number 123456789012", "123456789012"),
]

# Bare-numeric classes: redacted by the full set only.
BARE_VALID = [
    ("CREDIT_CARD", "card 4111 1111 1111 1111 thanks", "4111 1111 1111 1111"),
    ("CREDIT_CARD", "card 4111-1111-1111-1111.", "4111-1111-1111-1111"),
    ("CREDIT_CARD", "card 378282246310005 used", "378282246310005"),
    ("CNPJ", "contract 11222333000181 yes", "11222333000181"),
    ("CPF", "Sem mascara 11144477735 ok", "11144477735"),
    ("PHONE", "phone +15551234567", "+15551234567"),
    ("PHONE", "call 415-555-0123 thanks", "415-555-0123"),
    ("PHONE", "call (212) 555-7890", "212) 555-7890"),  # "(" stays: the match starts at \b
    ("PHONE", "call 2025551234 thanks", "2025551234"),
]

# Near misses: right shape, failing checksum/range/keyword. Nothing may be redacted.
NEAR_MISSES = [
    "CPF 111.444.777-36",
    "CPF 111.111.111-11",  # repeated digits pass the arithmetic but are rejected
    "CNPJ 11.222.333/0001-82",
    "CUIT 20-11111111-3",
    "noise DE89370400440532013001 noise",
    "invoice 4111 1111 1111 1112",
    "contract 11222333000182 yes",
    "Sem mascara 11144477736 ok",
    "Random 2341 2341 2345 nope",
    "Aadhaar 1234 1234 1234",  # Verhoeff-valid, but Aadhaar never starts with 0 or 1
    "Aadhaar: 234123412345",
    "Order 234123412346 shipped",  # valid Verhoeff, no keyword
    "ID 12345678A code",
    "NIE X1234567A",
    "BG123456A",
    "GB123456A",
    "NK123456A",
    "KN123456A",
    "TN123456A",
    "NT123456A",
    "ZZ123456A",
    "DA123456A",
    "QA123456A",
    "AO123456A",
    "AD123456A",
    "AB123456E",
    "test 000-12-3456",
    "test 666-12-3456",
    "test 900-12-3456",
    "test 123-00-4567",
    "test 123-45-0000",
    "ref 900101-5234567 nope",
    "RFC VECJ88032XK4",
    "PAN ABCDE12345",
    "Order 123456789012 shipped today.",
    "short +123456",
    "score 115-555-0123 ish",
    "score 415-155-0123 ish",
]


@pytest.mark.parametrize(("pii_class", "text", "pii"), STRICT_VALID + BARE_VALID)
def test_valid_identifier_is_replaced_by_its_token(pii_class: str, text: str, pii: str) -> None:
    assert redact_pii(text) == Redaction(text.replace(pii, tok(pii_class)), (pii_class,))


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_is_left_alone(text: str) -> None:
    assert redact_pii(text) == Redaction(text, ())
    assert not has_likely_pii(text)


@pytest.mark.parametrize(("pii_class", "text", "pii"), STRICT_VALID)
def test_strict_set_keeps_formatted_and_keyword_classes(
    pii_class: str, text: str, pii: str
) -> None:
    assert has_likely_pii(text)
    assert redact_pii(text, strict=True).value == text.replace(pii, tok(pii_class))


@pytest.mark.parametrize(("pii_class", "text", "pii"), BARE_VALID)
def test_strict_set_skips_bare_numeric_classes(pii_class: str, text: str, pii: str) -> None:
    assert not has_likely_pii(text)
    assert redact_pii(text, strict=True) == Redaction(text, ())
    assert tok(pii_class) in redact_pii(text).value


@pytest.mark.parametrize(
    "identifier",
    [
        "whatsapp-web:12025551234@c.us",
        "12025551234-1543890267@g.us:2026-05-30",
        "imessage:+12025551234:2026-05-30",
        "4123456789:2026-05-30",
        "accepted:000001747729035001",
        "memory/global/preferences",
        "user/alice@example.com",  # emails are not PII here
    ],
)
def test_strict_gate_ignores_scanner_built_identifiers(identifier: str) -> None:
    assert not has_likely_pii(identifier)


def test_pii_classes_are_the_a11_tokens_in_priority_order() -> None:
    assert PII_CLASSES == (
        "CPF",
        "CNPJ",
        "CUIT",
        "IBAN",
        "CREDIT_CARD",
        "AADHAAR",
        "DNI",
        "NINO",
        "SSN",
        "RRN",
        "RFC",
        "PAN_IN",
        "PHONE",
        "MYNUMBER",
    )


def test_mixed_document_reports_each_replacement_left_to_right() -> None:
    text = "SSN 123-45-6789, card 4111 1111 1111 1111, SSN again 234-56-7890."
    assert redact_pii(text) == Redaction(
        f"SSN {tok('SSN')}, card {tok('CREDIT_CARD')}, SSN again {tok('SSN')}.",
        ("SSN", "CREDIT_CARD", "SSN"),
    )


def test_earlier_longer_match_wins_on_overlap() -> None:
    # "4111 1111 1111" alone would be an Aadhaar-shaped candidate; the card starts at the
    # same place and is longer, so the whole card is one CREDIT_CARD.
    assert redact_pii("4111 1111 1111 1111").found == ("CREDIT_CARD",)


def test_greedy_candidate_does_not_hide_neighbouring_pii() -> None:
    # The card pattern first grabs "378282246310005 2341" (fails Luhn); a later pass, after
    # the Aadhaar is replaced, still finds the card.
    assert redact_pii("378282246310005 2341 2341 2346") == Redaction(
        f"{tok('CREDIT_CARD')} {tok('AADHAAR')}", ("AADHAAR", "CREDIT_CARD")
    )


# --------------------------------------------------------------------- normalisation


def test_fullwidth_digits_and_punctuation_cannot_bypass() -> None:
    assert redact_pii("CPF: １１１．４４４．７７７－３５ done").value == f"CPF: {tok('CPF')} done"


def test_fullwidth_text_outside_the_match_is_preserved() -> None:
    text = "room １２ and ssn １２３－４５－６７８９！"
    assert redact_pii(text).value == f"room １２ and ssn {tok('SSN')}！"


def test_zero_width_chars_inside_the_match_are_replaced_with_it() -> None:
    assert redact_pii("ssn 1\u200b23-4\u200c5-67\u206089 done").value == f"ssn {tok('SSN')} done"


def test_zero_width_chars_around_the_match_are_kept() -> None:
    text = "ssn \u200b123-45-6789\ufeff done"
    assert redact_pii(text).value == f"ssn \u200b{tok('SSN')}\ufeff done"


def test_arabic_indic_digits_are_folded() -> None:
    assert redact_pii("phone +١٥٥٥١٢٣٤٥٦٧").value == f"phone {tok('PHONE')}"
    assert redact_pii("ssn ۱۲۳-۴۵-۶۷۸۹ end").value == f"ssn {tok('SSN')} end"
    assert has_likely_pii("user:۱۲۳-۴۵-۶۷۸۹")


def test_fullwidth_colon_and_slash_are_folded() -> None:
    assert redact_pii("CNPJ 11．222．333／0001－81").value == f"CNPJ {tok('CNPJ')}"
    assert redact_pii("マイナンバー：123456789012").value == f"マイナンバー：{tok('MYNUMBER')}"


# --------------------------------------------------------------------- idempotence

FRAGMENTS = [pii for _, _, pii in STRICT_VALID + BARE_VALID] + [
    " ",
    "-",
    ".",
    "/",
    ":",
    "+",
    "(",
    "\n",
    "_",
    "a",
    "Z",
    "é",
    "0",
    "1",
    "9",
    "１",
    "٥",
    "\u200b",
    "Aadhaar: ",
    "マイナンバー ",
    tok("SSN"),
]

texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(FRAGMENTS), max_size=10).map("".join),
)


@settings(max_examples=400)
@given(texts, st.booleans())
def test_redaction_is_idempotent(text: str, strict: bool) -> None:
    once = redact_pii(text, strict=strict)
    assert redact_pii(once.value, strict=strict) == Redaction(once.value, ())
    assert len(once.found) == once.value.count("[REDACTED_PII_") - text.count("[REDACTED_PII_")


@settings(max_examples=400)
@given(texts)
def test_strict_gate_agrees_with_strict_redaction(text: str) -> None:
    assert has_likely_pii(text) == (redact_pii(text, strict=True).value != text)
    assert not has_likely_pii(redact_pii(text, strict=True).value)
