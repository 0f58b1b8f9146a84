"""Word tables behind the protected-token rules of :mod:`.similarity`.

* ``CONTRASTS`` — classes of words that take opposite (or mutually exclusive) sides: direction
  (grew / fell), timing (before / after), age (new / returning), … Two texts that both take a
  side in a class and take different sides never merge.
* ``PLACES`` / ``MULTIWORD_PLACES`` — lower-case place names (countries, US states, continents and
  major regions, common demonyms), each mapped to one canonical name, so "germany" is protected
  like "Germany" and "german customers" means the same place as "customers in germany".
* number words — cardinals, ordinals, multipliers ("doubled") and scale words, read into digits
  before numbers are compared.

"on"/"off" count as a toggle only where they are one (see ``similarity._expand``: "turn on",
"switched off", "… gridlines off." become ``switchon``/``switchoff``), never as prepositions.

Everything here is lower case. Changing these tables changes stored similarity signatures: add a
re-index migration (see ``_schema.m005_reindex_memory_signatures``).
"""
from __future__ import annotations

__all__ = [
    "CONTRASTS",
    "CONTRAST_OF",
    "PLACES",
    "MULTIWORD_PLACES",
    "UNITS",
    "TENS",
    "SCALES",
    "ORDINALS",
    "MULTIPLIERS",
]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# class -> pole -> words. A word may sit in more than one class ("last" is a position and a time).
CONTRASTS: dict[str, dict[str, tuple[str, ...]]] = {
    "direction": {
        "up": _words(
            "grew grow grows growing grown rose rise rises rising risen increase increased "
            "increases increasing climbed climb climbs climbing jumped jump jumps jumping surged "
            "surge surges surging soared soar soars soaring spiked spike spikes spiking rebounded "
            "rebound accelerated up upward upwards higher above more greater larger bigger "
            "expanded expand expands expanding boosted"
        ),
        "down": _words(
            "fell fall falls falling fallen dropped drop drops dropping declined decline declines "
            "declining decreased decrease decreases decreasing shrank shrink shrinks shrinking "
            "shrunk slumped slump slumps plunged plunge plunges plummeted plummet dipped dip dips "
            "sank sink sinks slid tumbled tumble slowed down downward downwards lower below less "
            "fewer smaller contracted reduced reduce reduces reduction"
        ),
    },
    "level": {
        "high": _words("high large big heavy many"),
        "low": _words("low small little few"),
    },
    "extreme": {
        "top": _words("top highest largest biggest most peak"),
        "bottom": _words("bottom lowest smallest least fewest offpeak"),
    },
    "quality": {
        "good": _words(
            "good better best great excellent strong stronger strongest improve improved "
            "improves improving improvement outperform outperformed outperforms outperforming"
        ),
        "bad": _words(
            "bad worse worst poor poorer poorest weak weaker weakest worsen worsened worsens "
            "worsening deteriorated deteriorate underperform underperformed underperforms "
            "underperforming"
        ),
    },
    "sign": {
        "positive": _words("positive positively"),
        "negative": _words("negative negatively"),
    },
    "gain_loss": {
        "gain": _words("gain gains gained profit profits profitable surplus"),
        "loss": _words("loss losses lost lose loses losing deficit"),
    },
    "timing": {
        "before": _words("before pre prior earlier preceding ahead"),
        "after": _words("after post later afterwards following subsequent"),
    },
    "sequence": {
        "start": _words("first earliest initial beginning start starting opening"),
        "end": _words("last latest final ending end closing"),
    },
    "relative_time": {
        "past": _words("last previous prior past yesterday"),
        "present": _words("current today"),
        "future": _words("next upcoming future tomorrow"),
    },
    "age": {
        "new": _words("new newer newest"),
        "old": _words("old older oldest existing returning repeat recurring legacy loyal"),
    },
    "toggle": {
        "on": _words(
            "with switchon enable enabled enables enabling activate activated show shows shown showing "
            "display displays displayed include includes included including inclusive allow "
            "allowed allows"
        ),
        "off": _words(
            "without switchoff disable disabled disables disabling deactivate deactivated hide hides "
            "hidden hiding exclude excludes excluded excluding exclusive omit omits omitted "
            "omitting disallow disallowed block blocked blocks"
        ),
    },
    "retention": {
        "keep": _words("keep keeps kept keeping retain retains retained preserve preserved"),
        "remove": _words(
            "remove removes removed removing delete deletes deleted deleting discard discards "
            "discarded"
        ),
    },
    "truth": {
        "true": _words("true yes correct valid accurate"),
        "false": _words("false incorrect invalid wrong inaccurate"),
    },
    "outcome": {
        "pass": _words("pass passed passes passing succeed succeeded succeeds success successful"),
        "fail": _words("fail failed fails failing failure failures unsuccessful"),
    },
    "trade": {
        "buy": _words("buy buys bought buying buyer buyers purchase purchased purchases"),
        "sell": _words("sell sells sold selling seller sellers"),
    },
    "flow": {
        "in": _words("inbound import imports imported importing incoming inflow inflows input inputs"),
        "out": _words(
            "outbound export exports exported exporting outgoing outflow outflows output outputs"
        ),
    },
    "scope": {
        "internal": _words("internal"),
        "external": _words("external"),
    },
    "channel": {
        "online": _words("online"),
        "offline": _words("offline"),
    },
    "sex": {
        "male": _words("male males man men"),
        "female": _words("female females woman women"),
    },
    "sort": {
        "ascending": _words("ascending asc"),
        "descending": _words("descending desc"),
    },
    "side": {
        "left": _words("left"),
        "right": _words("right"),
    },
    "orientation": {
        "horizontal": _words("horizontal horizontally"),
        "vertical": _words("vertical vertically"),
    },
    "theme": {
        "light": _words("light"),
        "dark": _words("dark"),
    },
    "axis_scale": {
        "linear": _words("linear"),
        "log": _words("log logarithmic"),
    },
    "join": {w: (w,) for w in _words("inner outer left right cross")},
    "period": {
        "millisecond": _words("millisecond milliseconds ms"),
        "second": _words("second seconds"),
        "minute": _words("minute minutes"),
        "hour": _words("hour hours hourly"),
        "day": _words("day days daily"),
        "week": _words("week weeks weekly biweekly"),
        "month": _words("month months monthly"),
        "quarter": _words("quarter quarters quarterly"),
        "year": _words("year years yearly annual annually"),
    },
    "daytype": {
        "weekday": _words("weekday weekdays workday workdays"),
        "weekend": _words("weekend weekends holiday holidays"),
    },
    "daypart": {
        "morning": _words("morning mornings"),
        "afternoon": _words("afternoon afternoons"),
        "evening": _words("evening evenings"),
        "night": _words("night nights overnight"),
    },
    # weekdays and months (not "may", a modal verb): written capitalised they are names anyway
    "calendar": {w: (w, w + "s") if w.endswith("day") else (w,) for w in _words(
        "monday tuesday wednesday thursday friday saturday sunday january february march april "
        "june july august september october november december"
    )},
    "chart": {w: (w, w + "s") for w in _words(
        "bar line pie scatter histogram heatmap area box violin donut bubble treemap funnel "
        "choropleth waterfall candlestick"
    )},
    "tool": {w: (w,) for w in _words(
        "plotly seaborn matplotlib altair bokeh ggplot ggplot2 pandas polars duckdb numpy spark "
        "pyspark dask excel tableau powerbi looker sheets"
    )},
    "file_format": {w: (w,) for w in _words(
        "csv tsv parquet json jsonl ndjson xlsx xls feather arrow avro orc sqlite pdf png svg html "
        "markdown"
    )},
    # the measure a fact is about: "revenue grew 5%" and "cost grew 5%" are different facts
    "measure": {
        "revenue": _words("revenue revenues sales turnover"),
        "cost": _words("cost costs expense expenses spend spending"),
        "profit": _words("profit profits earnings"),
        "margin": _words("margin margins"),
        "price": _words("price prices pricing"),
        "quantity": _words("units quantity quantities"),
        "orders": _words("orders"),
        "refunds": _words("refund refunds"),
        "discount": _words("discount discounts"),
        "churn": _words("churn"),
        "traffic": _words("traffic visits visitors pageviews"),
        "conversion": _words("conversion conversions"),
    },
    "currency": {
        "usd": _words("usd dollar dollars"),
        "eur": _words("eur euro euros"),
        "gbp": _words("gbp pound pounds sterling"),
        "jpy": _words("jpy yen"),
        "cny": _words("cny rmb yuan renminbi"),
        "inr": _words("inr rupee rupees"),
        "chf": _words("chf franc francs"),
    },
}

# word -> ((class, pole), ...)
CONTRAST_OF: dict[str, tuple[tuple[str, str], ...]] = {}
for _cls, _poles in CONTRASTS.items():
    for _pole, _members in _poles.items():
        for _w in _members:
            CONTRAST_OF[_w] = CONTRAST_OF.get(_w, ()) + ((_cls, _pole),)


# --- places ------------------------------------------------------------------------------------

_COUNTRIES = _words(
    "afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan "
    "bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia "
    "botswana brazil brunei bulgaria burundi cambodia cameroon canada chad chile china colombia "
    "comoros congo croatia cuba cyprus czechia denmark djibouti dominica ecuador egypt eritrea "
    "estonia eswatini ethiopia fiji finland france gabon gambia georgia germany ghana greece "
    "grenada guatemala guinea guyana haiti honduras hungary iceland india indonesia iran iraq "
    "ireland israel italy jamaica japan jordan kazakhstan kenya kiribati kosovo kuwait kyrgyzstan "
    "laos latvia lebanon lesotho liberia libya liechtenstein lithuania luxembourg madagascar "
    "malawi malaysia maldives mali malta mauritania mauritius mexico micronesia moldova monaco "
    "mongolia montenegro morocco mozambique myanmar namibia nauru nepal netherlands nicaragua "
    "niger nigeria norway oman pakistan palau palestine panama paraguay peru philippines poland "
    "portugal qatar romania russia rwanda samoa senegal serbia seychelles singapore slovakia "
    "slovenia somalia spain sudan suriname sweden switzerland syria taiwan tajikistan tanzania "
    "thailand togo tonga tunisia turkey turkmenistan tuvalu uganda ukraine uruguay uzbekistan "
    "vanuatu vatican venezuela vietnam yemen zambia zimbabwe holland czech korea"
)
_US_STATES = _words(
    "alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii "
    "idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan "
    "minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania "
    "tennessee texas utah vermont virginia washington wisconsin wyoming"
)
_REGIONS = _words(
    "europe asia africa america americas oceania antarctica australasia eurasia scandinavia "
    "nordics nordic baltics balkans caribbean benelux iberia dach emea apac latam amer anz mena "
    "eu eea asean nafta"
)
# aliases and demonyms -> canonical place
_ALIASES = {
    "usa": "united states", "american": "united states", "americans": "united states",
    "uk": "united kingdom", "britain": "united kingdom", "british": "united kingdom",
    "england": "england", "english": "england", "scotland": "scotland", "scottish": "scotland",
    "wales": "wales", "welsh": "wales",
    "holland": "netherlands", "dutch": "netherlands", "czech": "czechia",
    "uae": "united arab emirates", "prc": "china",
    "german": "germany", "germans": "germany", "french": "france", "spanish": "spain",
    "italian": "italy", "italians": "italy", "portuguese": "portugal", "swiss": "switzerland",
    "austrian": "austria", "belgian": "belgium", "swedish": "sweden", "norwegian": "norway",
    "danish": "denmark", "finnish": "finland", "polish": "poland", "irish": "ireland",
    "greek": "greece", "turkish": "turkey", "russian": "russia", "ukrainian": "ukraine",
    "japanese": "japan", "chinese": "china", "korean": "korea", "indian": "india",
    "indonesian": "indonesia", "vietnamese": "vietnam", "thai": "thailand",
    "filipino": "philippines", "australian": "australia", "australians": "australia",
    "canadian": "canada", "canadians": "canada", "mexican": "mexico", "brazilian": "brazil",
    "argentine": "argentina", "argentinian": "argentina", "chilean": "chile",
    "colombian": "colombia", "peruvian": "peru", "nigerian": "nigeria", "kenyan": "kenya",
    "egyptian": "egypt", "israeli": "israel", "saudi": "saudi arabia",
    "european": "europe", "europeans": "europe", "asian": "asia", "african": "africa",
    "nordic": "nordics", "scandinavian": "scandinavia",
}
PLACES: dict[str, str] = {w: w for w in _COUNTRIES + _US_STATES + _REGIONS}
PLACES.update(_ALIASES)
PLACES["holland"] = "netherlands"
PLACES["czech"] = "czechia"
PLACES["nordic"] = "nordics"

# phrase -> canonical place; matched before single words, longest first
MULTIWORD_PLACES: dict[str, str] = {
    p: p for p in (
        "united states", "united kingdom", "united arab emirates", "great britain",
        "new zealand", "south africa", "south korea", "north korea", "saudi arabia",
        "sri lanka", "costa rica", "puerto rico", "el salvador", "hong kong", "new york",
        "new jersey", "new mexico", "new hampshire", "north carolina", "south carolina",
        "north dakota", "south dakota", "west virginia", "rhode island", "czech republic",
        "dominican republic", "ivory coast", "papua new guinea", "equatorial guinea",
        "south sudan", "northern ireland", "north macedonia", "bosnia and herzegovina",
        "trinidad and tobago", "north america", "south america", "latin america",
        "central america", "middle east", "southeast asia", "south asia", "east asia",
        "central asia", "western europe", "eastern europe", "northern europe",
        "southern europe", "central europe", "sub saharan africa", "north africa",
        "west africa", "east africa", "asia pacific", "district of columbia",
    )
}
MULTIWORD_PLACES.update({
    "united states of america": "united states", "great britain": "united kingdom",
    "czech republic": "czechia", "asia pacific": "apac", "washington dc": "district of columbia",
    "washington d c": "district of columbia",
})


# --- number words ------------------------------------------------------------------------------

UNITS = {
    w: i for i, w in enumerate(_words(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen"
    ))
}
TENS = {w: 10 * i for i, w in enumerate(_words(
    "twenty thirty forty fifty sixty seventy eighty ninety"), start=2)}
SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9,
          "trillion": 10**12, "dozen": 12}
ORDINALS = {
    w: i for i, w in enumerate(_words(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
    ), start=1)
}
ORDINALS.update({w: 10 * i for i, w in enumerate(_words(
    "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth"), start=2)})
ORDINALS.update({"hundredth": 100, "thousandth": 1000, "millionth": 10**6})
MULTIPLIERS = {
    "half": "0.5", "halved": "0.5", "halve": "0.5", "halves": "0.5", "halving": "0.5",
    "twice": "2", "double": "2", "doubled": "2", "doubles": "2", "doubling": "2", "twofold": "2",
    "thrice": "3", "triple": "3", "tripled": "3", "triples": "3", "tripling": "3",
    "threefold": "3", "quadruple": "4", "quadrupled": "4", "quadruples": "4", "fourfold": "4",
    "fivefold": "5", "tenfold": "10", "hundredfold": "100",
}
