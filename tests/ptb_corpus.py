"""A large, varied caption corpus for checking the Python PTB tokenizer port against CoreNLP's (Java).

Hand-written sentences cover numbers, units, `#`, currency, URLs and e-mail, contractions, quotes, brackets,
abbreviations and symbols; `corpus()` adds every token form in `FORMS` inside a few carrier sentences, at the
start, middle and end (sentence-final punctuation changes how CoreNLP treats a preceding period).
"""

from __future__ import annotations

import random

HAND = [
    "A man is riding a horse.",
    "Two dogs play in the park. They run fast.",
    "The cat's toy is under the table, isn't it?",
    'He said "hello" to me.',
    "It costs $5.50 or 50% off!",
    "I can't, won't, don't and shouldn't do it.",
    "We're here; they've gone: you'll see. I'd go. I'm fine.",
    "The U.S. team won. Mr. Smith and Dr. Who met at 3 p.m. today.",
    "A red-and-white striped shirt -- very nice...",
    "The ball (red) moves [left] {fast}.",
    "She's gonna wanna gotta go, cannot.",
    "The dogs' bowls are empty.",
    "'Quoted' words and `backticks' here.",
    "1,000 people, 3.14 pi, 10:30 am, 2019-01-01.",
    "Hello!!! What?? ok?!",
    "Ends with abbreviation etc.",
    "The woman (in a blue coat) walks her dog... slowly.",
    "Plan A. Then the next one.",
    "It's 5 o'clock and the U.K. office isn't open.",
    "they'd've gone, shouldn't've stayed",
    "Rock 'n' roll in the '90s.",
    "x=3.5, y=-2 and a+b",
    "Player #3 scored at 2.5km from the line.",
    "Visit http://example.com/path?q=1&r=2 for more.",
    "See www.example.org or https://a.b.co/x_y-z.html today",
    "Mail me at john.doe@example.com, thanks.",
    "He paid £5 and €10 and ¥300 for it.",
    "The C++ and C# programmers met.",
    "It weighs 3kg, is 1.5m tall and runs at 60km/h.",
    "Temperatures reach 30°C (86°F) in July.",
    "The ratio is 3:2 and the score 2-1.",
    "A 4x4 truck, a 3-D film, and a 2nd place.",
    "She said, “I’m fine” and left.",
    "It’s a dog’s life, isn’t it?",
    "“Quoted” text with ‘single’ quotes.",
    "The price rose 5% to $1,200.50 on Jan. 5th.",
    "Items: apples; pears; plums.",
    "Wait... what?!",
    "He -- surprisingly -- agreed.",
    "An em—dash and an en–dash here.",
    "The file is named report_v2.pdf, not report.doc.",
    "A/B testing and and/or logic.",
    "50/50 chance, 1/2 cup, 24/7 service.",
    "The man (who is tall) [and thin] waves.",
    "ID: A-123/B, code #42, ref. no. 7.",
    "@user posted #hashtag!",
    "Smile :) or frown :( today.",
    "3.5 vs. 4.0 and Inc. Corp. Ltd. Co.",
    "The 1990s and '80s and the 21st century.",
    "y'all ain't seen nothin' yet",
    "O'Neil and D'Angelo met O'Brien.",
    "I.B.M. and A.T.&T. merged.",
    "AT&T and Procter & Gamble.",
    "a < b and c > d",
    "Costs: $5, $10.99, US$20, and 5 dollars.",
    "He's 6'2\" tall.",
    "The score was 10-3 in the 2nd half; 3 - 1 later.",
    "Call 555-1234 or +1 (800) 555-0000.",
    "At 10:30:15 a.m. the train left.",
    "e.g. this, i.e. that, etc. and so on",
    "The dog's, the cats', the children's toys.",
    "N.Y.C. is big. So is L.A.",
    "What's up? Who's there? Where'd he go?",
    "It is 100% true; 0.5% false.",
    "Go to section 3.2.1 and page 45.",
    "version 2.0.1-beta released",
    "The temperature is -5 degrees.",
    "A man wearing a hat, a coat, and gloves.",
    "The ~approximate~ value ^ power * star = equal | pipe",
    "back\\slash and forward/slash",
    "Ellipsis.... four dots",
    "Question?! Exclamation!?",
    "Numbers like 1.000,50 and 1 000 000.",
    "The '60s, the 1960's and the 60's.",
    "She said 'no' and 'yes'.",
    "''double single'' and ``latex quotes''",
    "trailing apostrophe dogs'",
    "Mr.Smith and Mrs.Jones",
    "end with a period.",
    "A B. C.",
    "The U.S.",
    "I like it a lot !",
    "two  spaces   here",
    "Tab\tseparated words",
    "UPPER CASE SENTENCE HERE.",
    "MiXeD CaSe WoRdS.",
    "nothin' yet and the dogs' bowls",
    "the ¢5 and 5¢ coin",
    "C+ grade and A+ and x++ loop",
    "+5 and 3+4",
    "R&B music, Q&A time and a&b",
    "$5m and 5m and 10.5m, 1.5x faster, 2.0s and 0.5mm",
    "a 2.5-inch screen at 3.5kg/m",
    "Go to http://x.org/.",
    "http://x.org/a, then https://x.org/a;b",
    "Y'all and y'all.",
    "No. 5 and no. 5 is NO. 5 or No.5",
    ":-) smile ;) wink :D grin",
    "the dog., the cat and Mr., he said",
    "3.5., ok and u.s., and",
]

FORMS = [
    "#3", "#1 fan", "2.5km", "3kg", "10cm", "5.5%", "100%", "$5", "$5.50", "$1,000", "£5", "€20", "¥100",
    "US$3", "1,000", "1.5", "-2", "+3", "3-4", "10:30", "3/4", "1/2", "24/7", "2nd", "3rd", "1st", "4th",
    "http://x.org", "https://www.example.com/a/b?c=d", "www.example.org", "example.com", "a@b.com",
    "C++", "C#", "F#", "AT&T", "R&D", "can't", "won't", "shan't", "ain't", "I'm", "you're", "he's", "we've",
    "they'll", "she'd", "let's", "y'know", "'em", "'cause", "o'clock", "rock'n'roll", "don't", "isn't",
    "\"quoted\"", "'single'", "“curly”", "‘curly’", "(paren)", "[square]", "{curly}", "<angle>",
    "well-known", "state-of-the-art", "e-mail", "--", "-", "...", "…", ";", ":", "!", "?", "?!",
    "&", "*", "+", "=", "|", "~", "^", "\\", "/", "@", "%", "°", "©", "®", "™", "§", "±", "×",
    "U.S.", "U.K.", "p.m.", "a.m.", "Mr.", "Dr.", "etc.", "vs.", "Inc.", "No.", "St.", "Jan.",
    "3D", "4x4", "MP3", "H2O", "COVID-19", "iPhone", "e.g.", "i.e.", "5'10\"", "90's", "'90s",
    "x86_64", "file.txt", "v1.2.3", "1.2.3.4", "0.001", ".5", "5.", "1e10", "-0.5", "1:2:3",
]

CARRIERS = [
    "{} is here.",
    "The man saw {} and left",
    "We talked about {}, then went home.",
    "Look: {}!",
    "{}",
]


WORDS = "a the man woman dog red blue cube sphere moves rotates left right slowly around in on of".split()


def corpus() -> list[str]:
    """Every hand sentence, every form in every carrier, then 300 seeded mixtures (deterministic)."""
    out = list(HAND)
    for form in FORMS:
        for carrier in CARRIERS:
            out.append(carrier.format(form))
    rng = random.Random(7)
    ends = ["", ".", "!", "?", "...", " .", "?!"]
    for _ in range(300):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 10))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(FORMS))
        if rng.random() < 0.5:
            words[0] = words[0].capitalize()
        out.append(" ".join(words) + rng.choice(ends))
    return out
