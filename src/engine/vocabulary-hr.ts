// Croatian words for the local engine, each list ranked roughly by frequency (most common first).
import { type Vocabulary, wordList } from './vocabulary.ts';

export const VOCABULARY_HR: Vocabulary = {
  functionWords: wordList(`
    i je u se na da za su od a s to ne koji što kao ali o iz do će bi sa smo ja ti on ona mi vi
    oni ovo taj ta te po kod nakon prije između ili jer kad kada ako gdje već još samo sve svi
    nije bio bila bilo može mogu treba sam si ste kroz bez pod nad prema zbog oko uz kako zašto
    tko njihov naš vaš moj tvoj svoj neki svaki ovaj ovi tada sada tu ovdje onda također vrlo
    jako puno malo više manje baš čak ipak međutim dakle stoga koja koje kojem nešto netko ništa
    nitko jedan jedna dva tri njegov njezin ćemo ćete hoće niti dok među pa no
  `),
  contentWords: wordList(`
    godina vrijeme dan čovjek ljudi život svijet rad posao grad zemlja kuća obitelj dijete djeca
    žena muškarac prijatelj škola voda more sunce nebo put cesta knjiga riječ pitanje odgovor
    kaže ima želi zna vidi dolazi ide radi misli govori piše čita uči živi voli daje uzima
    dobar dobro velik veliki mali novi stari važan važno lijep lijepo hrvatski cijeli prvi drugi
    problem rješenje ideja plan cilj primjer dio mjesto stvar način razlog broj novac cijena
    tržište tvrtka vlada država zakon pravo sustav podaci znanje istraživanje razvoj promjena
    rezultat iskustvo jezik glazba sreća ljubav zdravlje hrana kruh kava čaj šuma rijeka jezero
    nalazi pokazuje ostaje postaje počinje završava pomaže čuje osjeća razumije objašnjava
    danas sutra jučer često rijetko zajedno odmah polako brzo upravo zapravo naravno svakako
    planina otok obala zima ljeto proljeće jesen jutro večer noć tjedan mjesec sat trenutak
    početak kraj priča pjesma slika film igra utakmica pobjeda selo ulica trg most luka brod
    zadnji posljednji sljedeći jednostavan težak lak brz spor visok nizak dug kratak jak slab
    odlučuje pokušava stvara gradi putuje vraća nastavlja otvara zatvara kupuje prodaje plaća
    računalo mreža program korisnik poruka vijest članak odluka prilika mogućnost snaga zadatak
    tehnologija znanost umjetnost kultura povijest budućnost prošlost događaj rođendan građani
    bogat sretan tužan mlad zanimljiv poznat moguć potreban jasan točan siguran slobodan javni
    pjeva pleše spava jede pije kuha šeta trči pliva čeka sluša gleda brine mijenja raste pada
    možda sigurno posebno uglavnom posvuda daleko blizu gore dolje unutra vani kasno rano opet
    građevina pomoć moć vrućina kiša snijeg vjetar zrak cvijeće vrt stol prozor vrata soba
    privatni domaći strani lokalni glavni odličan sjajan bijeli crni crveni zeleni plavi žuti
    donosi nosi pita odgovara sjeća zaboravlja smiješi plače vozi leti sjedi stoji čisti šalje
    krevet ključ torba susjed učitelj liječnik bolnica ured sastanak tvornica seljak ribar
    topao hladan čist tih glasan zdrav svjež sladak gorak mekan tvrd širok dubok daleki
    prima dijeli skuplja bira mora smije upoznaje priprema poboljšava čuva zamišlja opisuje
    najveći veći bolji lošiji mlađi stariji tuđi vrući slađi noćni dnevni ljetni zimski
    mlijeko sir jaje meso riba voće povrće juha ručak večera doručak šećer sol ulje vino
    grožđe jabuka kruška trešnja naranča limun krumpir luk češnjak kupus grah riža tjestenina
    automobil vlak autobus zrakoplov bicikl stanica kolodvor putovanje odmor izlet plaža
    sestra brat otac majka sin kći djed baka unuk muž supruga obitelji rođak susjedi
    srce glava ruka noga uho lice kosa leđa zub grlo tijelo duša misao osjećaj san
  `),
};
