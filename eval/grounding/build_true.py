#!/usr/bin/env python3
"""Builds eval/grounding/true-*.jsonl and eval/facts/grounding-*.jsonl: true facts, each with
the person's whole message (`turn`) and the span of it that states the fact (`quote`).

The (turn -> fact) alignment is the datasets' own: each fact comes from one act its
annotators tied to that user turn (SGD's INFORM / INFORM_INTENT actions, ConvLab-3's
unified acts for CamRest676 and WOZ 2.0, CrossWOZ's `dialog_act`). Nothing here matches the
fact's words against the turn. Each annotated (slot, value) is put into words by a fixed
template per slot (below); the quote is
  - the sentence that holds the annotated character span, when the dataset gives one
    (SGD's `slots`, ConvLab-3's non-categorical acts), or else
  - the whole turn, only when the turn is one sentence (acts without a span are never
    pinned to one sentence of a longer turn, since that would need matching words).

Raw data is read from the public repositories' git snapshots (see eval/SOURCES.md for the
commits); pass the directory holding them as the first argument (default /work/.mirror),
laid out as `<owner>+<name>/repo` (a bare git directory). Run from the repository root:

    python3 eval/grounding/build_true.py [/path/to/mirrors]

Output is deterministic (sorted input, a fixed hash for sampling).
"""

import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

MIRRORS = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
OUT = Path("eval/grounding")
FACTS = Path("eval/facts")

SGD = "google-research-datasets+dstc8-schema-guided-dialogue"
CONVLAB = "ConvLab+ConvLab-3"
CROSSWOZ = "thu-coai+CrossWOZ"


def git_dir(name):
    p = MIRRORS / name / "repo"
    return p / ".git" if (p / ".git").is_dir() else p


def git_show(name, path, binary=False):
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir(name)), "show", f"HEAD:{path}"],
        capture_output=True,
        check=False,
    ).stdout
    return out if binary else out.decode("utf-8")


def git_ls(name):
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir(name)), "ls-tree", "-r", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(out.splitlines())


def h(text):
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16)


# Sentences: ends at . ! ? (and the CJK ones) followed by space or end.
SENT_EN = re.compile(r"[^.!?]*(?:[.!?]+|$)")
SENT_ZH = re.compile(r"[^。！？!?]*(?:[。！？!?]+|$)")


def sentences(text, zh=False):
    """(start, end) of each sentence of `text`, whitespace trimmed."""
    out = []
    for m in (SENT_ZH if zh else SENT_EN).finditer(text):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def quote_for(turn, span_start=None, zh=False):
    """The quote an act rests on, or None (see the module doc)."""
    sents = sentences(turn, zh)
    if span_start is not None:
        for s, e in sents:
            if s <= span_start < e:
                q = turn[s:e]
                return q if len(q) <= 200 else None
        return None
    if len(sents) == 1:
        s, e = sents[0]
        q = turn[s:e]
        return q if len(q) <= 200 else None
    return None


def clean(v):
    return " ".join(str(v).split())


def low(v):
    return clean(v).lower()


# ---------------------------------------------------------------- SGD: (service, slot) -> template
# `{v}` is the annotated value as written in the dataset, `{l}` the same lowercased.
SGD_SLOTS = {
    ("Restaurants", "cuisine"): "Wants {l} food.",
    ("Restaurants", "category"): "Wants {v} food.",
    ("Restaurants", "city"): "Is looking for a restaurant in {v}.",
    ("Restaurants", "location"): "Is looking for a restaurant in {v}.",
    ("Restaurants", "price_range"): "Wants a {l} restaurant.",
    ("Restaurants", "party_size"): "Needs a table for {v}.",
    ("Restaurants", "number_of_seats"): "Needs a table for {v}.",
    ("Restaurants", "time"): "Wants a table at {v}.",
    ("Restaurants", "date"): "Wants a table on {v}.",
    ("Restaurants", "restaurant_name"): "Wants to eat at {v}.",
    ("Restaurants", "serves_alcohol"): {"True": "Wants a restaurant that serves alcohol."},
    ("Media", "genre"): "Wants to watch a {l} movie.",
    ("Media", "directed_by"): "Wants a movie directed by {v}.",
    ("Media", "starring"): "Wants a movie starring {v}.",
    ("Media", "title"): "Wants to watch {v}.",
    ("Media", "subtitle_language"): "Wants {v} subtitles.",
    ("Media", "subtitles"): {"True": "Wants subtitles.", "False": "Does not want subtitles."},
    ("Movies", "genre"): "Wants to watch a {l} movie.",
    ("Movies", "directed_by"): "Wants a movie directed by {v}.",
    ("Movies", "starring"): "Wants a movie starring {v}.",
    ("Movies", "cast"): "Wants a movie with {v}.",
    ("Movies", "location"): "Is looking for movies in {v}.",
    ("Movies", "theater_name"): "Wants to see a movie at {v}.",
    ("Movies", "movie_name"): "Wants to see {v}.",
    ("Movies", "show_type"): "Wants a {l} showing.",
    ("Movies", "number_of_tickets"): "Needs {v} movie tickets.",
    ("Movies", "show_date"): "Wants to see a movie on {v}.",
    ("Music", "artist"): "Wants to listen to {v}.",
    ("Music", "genre"): "Wants to listen to {l} music.",
    ("Music", "album"): "Wants to listen to the album {v}.",
    ("Music", "song_name"): "Wants to hear the song {v}.",
    ("Music", "playback_device"): "Wants music played on the {l}.",
    ("Music", "device"): "Wants music played on the {l}.",
    ("Music", "year"): "Wants a song from {v}.",
    ("Events", "city"): "Is looking for events in {v}.",
    ("Events", "city_of_event"): "Is looking for events in {v}.",
    ("Events", "category"): "Is interested in {l} events.",
    ("Events", "event_type"): "Is interested in {l} events.",
    ("Events", "subcategory"): "Is interested in {l} events.",
    ("Events", "event_name"): "Wants to go to {v}.",
    ("Events", "number_of_tickets"): "Needs {v} tickets for the event.",
    ("Events", "number_of_seats"): "Needs {v} tickets for the event.",
    ("Events", "date"): "Wants to go out on {v}.",
    ("Homes", "area"): "Is looking for a home in {v}.",
    ("Homes", "number_of_beds"): "Wants a home with {v} bedrooms.",
    ("Homes", "number_of_baths"): "Wants a home with {v} bathrooms.",
    ("Homes", "visit_date"): "Wants to visit a property on {v}.",
    ("Homes", "property_name"): "Wants to visit {v}.",
    ("Homes", "pets_allowed"): {"True": "Needs a home that allows pets."},
    ("Homes", "furnished"): {"True": "Needs a furnished home.", "False": "Does not need a furnished home."},
    ("Homes", "intent"): {"rent": "Wants to rent a home.", "buy": "Wants to buy a home."},
    ("Hotels", "location"): "Is looking for a hotel in {v}.",
    ("Hotels", "where_to"): "Is looking for a place to stay in {v}.",
    ("Hotels", "destination"): "Is looking for a hotel in {v}.",
    ("Hotels", "number_of_rooms"): "Needs {v} hotel rooms.",
    ("Hotels", "star_rating"): "Wants a {v} star hotel.",
    ("Hotels", "number_of_adults"): "Needs a place for {v} adults.",
    ("Hotels", "number_of_days"): "Wants to stay for {v} days.",
    ("Hotels", "stay_length"): "Wants to stay for {v} days.",
    ("Hotels", "check_in_date"): "Wants to check in on {v}.",
    ("Hotels", "check_out_date"): "Wants to check out on {v}.",
    ("Hotels", "hotel_name"): "Wants to stay at {v}.",
    ("Hotels", "has_wifi"): {"True": "Needs wifi where they stay."},
    ("Hotels", "has_laundry_service"): {"True": "Needs laundry service where they stay."},
    ("Hotels", "pets_welcome"): {"True": "Needs a place that welcomes pets."},
    ("Hotels", "smoking_allowed"): {"True": "Wants a hotel that allows smoking."},
    ("Flights", "origin_city"): "Is flying from {v}.",
    ("Flights", "origin"): "Is flying from {v}.",
    ("Flights", "origin_airport"): "Is flying from {v}.",
    ("Flights", "destination_city"): "Is flying to {v}.",
    ("Flights", "destination"): "Is flying to {v}.",
    ("Flights", "destination_airport"): "Is flying to {v}.",
    ("Flights", "departure_date"): "Is flying out on {v}.",
    ("Flights", "return_date"): "Is flying back on {v}.",
    ("Flights", "airlines"): "Wants to fly with {v}.",
    ("Flights", "seating_class"): "Wants to fly {v}.",
    ("Flights", "flight_class"): "Wants to fly {v}.",
    ("Flights", "passengers"): "Needs flights for {v} passengers.",
    ("Flights", "number_of_tickets"): "Needs {v} plane tickets.",
    ("Flights", "number_checked_bags"): "Has {v} bags to check in.",
    ("Buses", "from_location"): "Is taking a bus from {v}.",
    ("Buses", "from_city"): "Is taking a bus from {v}.",
    ("Buses", "origin"): "Is taking a bus from {v}.",
    ("Buses", "to_location"): "Is taking a bus to {v}.",
    ("Buses", "to_city"): "Is taking a bus to {v}.",
    ("Buses", "destination"): "Is taking a bus to {v}.",
    ("Buses", "leaving_date"): "Is taking a bus on {v}.",
    ("Buses", "departure_date"): "Is taking a bus on {v}.",
    ("Buses", "travelers"): "Needs bus tickets for {v} people.",
    ("Buses", "group_size"): "Needs bus tickets for {v} people.",
    ("Buses", "num_passengers"): "Needs bus tickets for {v} people.",
    ("Buses", "fare_type"): "Wants {l} bus tickets.",
    ("Trains", "from"): "Is taking a train from {v}.",
    ("Trains", "to"): "Is taking a train to {v}.",
    ("Trains", "date_of_journey"): "Is taking a train on {v}.",
    ("Trains", "number_of_adults"): "Needs train tickets for {v} people.",
    ("Trains", "class"): "Wants {v} class train tickets.",
    ("Trains", "trip_protection"): {"True": "Wants trip insurance.", "False": "Does not want trip insurance."},
    ("RentalCars", "pickup_city"): "Wants to rent a car in {v}.",
    ("RentalCars", "city"): "Wants to rent a car in {v}.",
    ("RentalCars", "pickup_location"): "Wants to pick up a rental car at {v}.",
    ("RentalCars", "pickup_date"): "Wants to pick up a rental car on {v}.",
    ("RentalCars", "start_date"): "Wants to pick up a rental car on {v}.",
    ("RentalCars", "dropoff_date"): "Wants to return the rental car on {v}.",
    ("RentalCars", "end_date"): "Wants to return the rental car on {v}.",
    ("RentalCars", "car_type"): "Wants to rent a {l}.",
    ("RentalCars", "type"): "Wants a {l} rental car.",
    ("RentalCars", "add_insurance"): {"True": "Wants insurance on the rental car.", "False": "Does not want insurance on the rental car."},
    ("RideSharing", "destination"): "Needs a ride to {v}.",
    ("RideSharing", "number_of_seats"): "Needs a ride for {v} people.",
    ("RideSharing", "number_of_riders"): "Needs a ride for {v} people.",
    ("RideSharing", "ride_type"): "Wants a {l} ride.",
    ("RideSharing", "shared_ride"): {"True": "Is fine with a shared ride.", "False": "Does not want a shared ride."},
    ("Travel", "location"): "Is looking for attractions in {v}.",
    ("Travel", "category"): "Wants to visit a {l}.",
    ("Travel", "good_for_kids"): {"True": "Wants places that are good for children."},
    ("Travel", "free_entry"): {"True": "Wants attractions with free entry."},
    ("Services", "city"): "Is looking for a service provider in {v}.",
    ("Services", "type"): "Is looking for a {l}.",
    ("Services", "appointment_date"): "Wants an appointment on {v}.",
    ("Services", "appointment_time"): "Wants an appointment at {v}.",
    ("Services", "dentist_name"): "Wants to see {v}.",
    ("Services", "doctor_name"): "Wants to see {v}.",
    ("Services", "stylist_name"): "Wants to see {v}.",
    ("Services", "is_unisex"): {"True": "Wants a unisex salon."},
    ("Banks", "account_type"): "Is asking about their {l} account.",
    ("Banks", "recipient_account_name"): "Wants to send money to {v}.",
    ("Banks", "recipient_name"): "Wants to send money to {v}.",
    ("Banks", "amount"): "Wants to transfer {v}.",
    ("Banks", "transfer_amount"): "Wants to transfer {v}.",
    ("Banks", "recipient_account_type"): "Wants to transfer money to a {l} account.",
    ("Payment", "receiver"): "Wants to pay {v}.",
    ("Payment", "amount"): "Wants to send {v}.",
    ("Payment", "payment_method"): "Wants to pay with their {l}.",
    ("Payment", "private_visibility"): {"True": "Wants the payment kept private."},
    ("Weather", "city"): "Wants to know the weather in {v}.",
    ("Weather", "date"): "Wants to know the weather on {v}.",
    ("Calendar", "event_name"): "Wants {v} on their calendar.",
    ("Calendar", "event_date"): "Has an event on {v}.",
    ("Calendar", "event_time"): "Has an event at {v}.",
    ("Calendar", "event_location"): "Has an event at {v}.",
    ("Alarm", "new_alarm_time"): "Wants an alarm at {v}.",
    ("Alarm", "new_alarm_name"): "Wants an alarm called {v}.",
    ("Messaging", "contact_name"): "Wants to share their location with {v}.",
    ("Messaging", "location"): "Wants to share the address {v}.",
}

SGD_INTENTS = {
    "FindMovies": "Wants to find a movie to watch.",
    "FindEvents": "Is looking for something to do.",
    "BuyEventTickets": "Wants to buy event tickets.",
    "GetRide": "Needs a ride.",
    "SearchHotel": "Is looking for a hotel.",
    "GetWeather": "Wants to know the weather.",
    "FindProvider": "Is looking for a service provider.",
    "FindRestaurants": "Is looking for a restaurant.",
    "FindAttractions": "Is looking for attractions to visit.",
    "BookAppointment": "Wants to book an appointment.",
    "ReserveRestaurant": "Wants to reserve a table at a restaurant.",
    "GetCarsAvailable": "Is looking for a rental car.",
    "SearchOnewayFlight": "Is looking for a one-way flight.",
    "FindApartment": "Is looking for an apartment.",
    "SearchRoundtripFlights": "Is looking for a round-trip flight.",
    "ReserveCar": "Wants to reserve a rental car.",
    "FindBus": "Is looking for a bus.",
    "ReserveHotel": "Wants to book a hotel room.",
    "CheckBalance": "Wants to check their bank balance.",
    "BuyBusTicket": "Wants to buy bus tickets.",
    "LookupMusic": "Is looking for music.",
    "SearchHouse": "Is looking for a house to stay in.",
    "ScheduleVisit": "Wants to visit a property.",
    "PlayMovie": "Wants to watch a movie.",
    "LookupSong": "Is looking for a song.",
    "PlaySong": "Wants to play a song.",
    "TransferMoney": "Wants to transfer money.",
    "BookHouse": "Wants to book a house.",
    "GetAlarms": "Wants to see their alarms.",
    "GetEvents": "Wants to see their calendar events.",
    "AddEvent": "Wants to add an event to their calendar.",
    "FindTrains": "Is looking for a train.",
    "ShareLocation": "Wants to share their location.",
    "MakePayment": "Wants to make a payment.",
    "AddAlarm": "Wants to set an alarm.",
    "BuyMovieTickets": "Wants to buy movie tickets.",
    "RentMovie": "Wants to rent a movie.",
    "RequestPayment": "Wants to request a payment.",
}


def render(template, value):
    if isinstance(template, dict):
        return template.get(str(value))
    v = clean(value)
    if not v or v.lower() in ("dontcare", "none"):
        return None
    return template.replace("{v}", v).replace("{l}", v.lower())


def sgd_items():
    files = [p for p in git_ls(SGD) if re.match(r"(train|dev|test)/dialogues_\d+\.json$", p)]
    out = []
    for path in files:
        raw = git_show(SGD, path)
        if not raw.strip():
            continue  # not in the snapshot (see SOURCES.md)
        for dia in json.loads(raw):
            for ti, turn in enumerate(dia["turns"]):
                if turn["speaker"] != "USER":
                    continue
                text = turn["utterance"]
                for frame in turn["frames"]:
                    service = frame["service"].split("_")[0]
                    spans = {s["slot"]: s["start"] for s in frame.get("slots", [])}
                    for act in frame["actions"]:
                        if act["act"] == "INFORM_INTENT":
                            fact = SGD_INTENTS.get(act["values"][0]) if act["values"] else None
                            slot, start = "intent", None
                        elif act["act"] == "INFORM" and act["values"]:
                            slot = act["slot"]
                            t = SGD_SLOTS.get((service, slot))
                            fact = render(t, act["values"][0]) if t else None
                            start = spans.get(slot)
                        else:
                            continue
                        if not fact:
                            continue
                        q = quote_for(text, start)
                        if q:
                            out.append(
                                {
                                    "turn": text,
                                    "quote": q,
                                    "fact": fact,
                                    "source": "sgd",
                                    "lang": "en",
                                    "split": "tune",
                                    "family": f"{service}/{slot}",
                                    "id": f"{dia['dialogue_id']}#{ti}",
                                }
                            )
    return out


# ---------------------------------------------------------------- CamRest676, WOZ 2.0 (ConvLab-3)
CAM_SLOTS = {
    "food": "Wants {l} food.",
    "area": "Wants a restaurant in the {l} of town.",
    "price range": "Wants a {l} restaurant.",
    "pricerange": "Wants a {l} restaurant.",
}
CAM_DONTCARE = {
    "food": "Does not mind what type of food.",
    "area": "Does not mind which part of town.",
    "price range": "Does not mind the price range.",
    "pricerange": "Does not mind the price range.",
}


def convlab_items(dataset, source, split):
    z = zipfile.ZipFile(io.BytesIO(git_show(CONVLAB, f"data/unified_datasets/{dataset}/data.zip", binary=True)))
    out = []
    for dia in json.loads(z.read("data/dialogues.json")):
        for turn in dia["turns"]:
            if turn["speaker"] != "user":
                continue
            text = turn["utterance"]
            acts = turn["dialogue_acts"]
            for kind in ("categorical", "non-categorical"):
                for a in acts.get(kind, []):
                    if a["intent"] != "inform" or a["slot"] not in CAM_SLOTS:
                        continue
                    v = clean(a.get("value", ""))
                    if v.lower() == "dontcare":
                        fact = CAM_DONTCARE[a["slot"]]
                    else:
                        fact = render(CAM_SLOTS[a["slot"]], v)
                    if not fact:
                        continue
                    q = quote_for(text, a.get("start"))
                    if q:
                        out.append(
                            {
                                "turn": text,
                                "quote": q,
                                "fact": fact,
                                "source": source,
                                "lang": "en",
                                "split": split,
                                "family": f"restaurant/{a['slot']}",
                                "id": f"{dia['dialogue_id']}#{turn['utt_idx']}",
                            }
                        )
    return out


# ---------------------------------------------------------------- CrossWOZ (zh)
CW_SLOTS = {
    ("餐馆", "推荐菜"): "想吃{v}。",
    ("餐馆", "人均消费"): "想找人均消费{v}的餐馆。",
    ("餐馆", "评分"): "想找评分{v}的餐馆。",
    ("餐馆", "名称"): "想去{v}吃饭。",
    ("景点", "名称"): "想去{v}。",
    ("景点", "游玩时间"): "想找游玩时间{v}的景点。",
    ("景点", "门票"): "想找门票{v}的景点。",
    ("景点", "评分"): "想找评分{v}的景点。",
    ("酒店", "名称"): "想住{v}。",
    ("酒店", "酒店类型"): "想住{v}酒店。",
    ("酒店", "价格"): "想找价格{v}的酒店。",
    ("酒店", "评分"): "想找评分{v}的酒店。",
    ("出租", "出发地"): "要从{v}打车。",
    ("出租", "目的地"): "要打车去{v}。",
    ("地铁", "出发地"): "要从{v}坐地铁。",
    ("地铁", "目的地"): "要坐地铁去{v}。",
}


def crosswoz_items():
    out = []
    for part in ("test", "val"):
        z = zipfile.ZipFile(io.BytesIO(git_show(CROSSWOZ, f"data/crosswoz/{part}.json.zip", binary=True)))
        data = json.loads(z.read(z.namelist()[0]))
        for did in sorted(data, key=lambda k: int(k) if k.isdigit() else k):
            for mi, m in enumerate(data[did]["messages"]):
                if m["role"] != "usr":
                    continue
                text = m["content"]
                for intent, domain, slot, value in m["dialog_act"]:
                    if intent != "Inform":
                        continue
                    if slot.startswith("酒店设施-"):
                        fact = f"需要酒店提供{slot.split('-', 1)[1]}。" if value == "是" else None
                    else:
                        t = CW_SLOTS.get((domain, slot))
                        fact = render(t, value) if t else None
                    if not fact:
                        continue
                    q = quote_for(text, None, zh=True)
                    if q:
                        out.append(
                            {
                                "turn": text,
                                "quote": q,
                                "fact": fact,
                                "source": "crosswoz",
                                "lang": "zh",
                                "split": "held",
                                "family": f"{domain}/{slot.split('-')[0]}",
                                "id": f"{part}-{did}#{mi}",
                            }
                        )
    return out


def sample(items, per_family, total):
    """At most `per_family` items of each family and `total` in all, chosen by a hash of
    the item's id and fact (deterministic); one item per (turn, fact)."""
    seen, fam, out = set(), {}, []
    for it in sorted(items, key=lambda x: h(x["id"] + x["fact"])):
        key = (it["turn"], it["fact"])
        if key in seen or fam.get(it["family"], 0) >= per_family:
            continue
        seen.add(key)
        fam[it["family"]] = fam.get(it["family"], 0) + 1
        out.append(it)
        if len(out) >= total:
            break
    return sorted(out, key=lambda x: x["id"])


def write(path, items, fields):
    with open(path, "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps({k: it[k] for k in fields if k in it}, ensure_ascii=False) + "\n")


FIELDS = ["turn", "quote", "fact", "source", "lang", "split", "family", "id"]


def main():
    sets = {
        "sgd": sample(sgd_items(), 40, 2600),
        "camrest": sample(convlab_items("camrest", "camrest676", "tune"), 400, 800),
        "woz": sample(convlab_items("woz", "woz2.0", "held"), 400, 900),
        "crosswoz": sample(crosswoz_items(), 90, 900),
    }
    for name, items in sets.items():
        write(OUT / f"true-{name}.jsonl", items, FIELDS)
        # The facts alone, for the policy's false-refusal rate: held out, as unseen facts.
        facts, seen = [], set()
        for it in items:
            if it["fact"] not in seen:
                seen.add(it["fact"])
                facts.append({"text": it["fact"], "source": it["source"], "lang": it["lang"], "split": "held"})
        write(FACTS / f"grounding-{name}.jsonl", facts, ["text", "source", "lang", "split"])
        print(name, len(items), "pairs,", len(facts), "facts")


if __name__ == "__main__":
    main()
